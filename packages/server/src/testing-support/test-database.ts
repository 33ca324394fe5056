import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Where the PostgreSQL tests create their throw-away databases. They never skip. */
export const ADMIN_DATABASE_URL =
  process.env.POWERCONTEXT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  connectionString: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database; `drop` removes it, cutting off every connection still open to it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `pc_server_test_${randomUUID().replaceAll('-', '')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}
