import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * A Citus coordinator for the tests that need one (RFC 0011, "Sharding with Citus"): the database named
 * by POWERCONTEXT_TEST_CITUS_URL, with the citus, vector and unaccent extensions available on every
 * node and the workers added. Citus is not packaged for CI, so these tests are skipped without it.
 */
export const CITUS_URL = process.env.POWERCONTEXT_TEST_CITUS_URL;

/** Why the Citus tests did not run, for the skipped suite's name. */
export const CITUS_SKIP_REASON = 'skipped: set POWERCONTEXT_TEST_CITUS_URL to a Citus coordinator to run';

export interface CitusSchema {
  /** The coordinator's URL with the schema first on the search path: the store's tables go there. */
  connectionString: string;
  drop(): Promise<void>;
}

/**
 * A throw-away schema in the Citus database, for one test file: a database per test would need Citus
 * set up in it on every node. The store creates and distributes its tables in the schema (the first on
 * the search path); `drop` removes it with its distributed tables.
 */
export async function createCitusSchema(citusUrl: string): Promise<CitusSchema> {
  const name = `pc_test_${randomUUID().replaceAll('-', '')}`;
  await onCoordinator(citusUrl, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query('CREATE EXTENSION IF NOT EXISTS unaccent');
    await client.query(`CREATE SCHEMA ${name}`);
  });
  // Spelled out: URLSearchParams would write the space as '+', which the connection string keeps.
  const options = `options=${encodeURIComponent(`-c search_path=${name},public`)}`;
  return {
    connectionString: `${citusUrl}${citusUrl.includes('?') ? '&' : '?'}${options}`,
    drop: async () => {
      await onCoordinator(citusUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`));
    },
  };
}

export async function onCoordinator<T>(
  citusUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: citusUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
