import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ThrowawayDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  name: string;
  /** pg_database_size of the database, in bytes. */
  sizeBytes(): Promise<number>;
  /** Drops the database, closing any connection left to it. */
  drop(): Promise<void>;
}

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database on the server of `adminUrl` (its database is only connected to, never
 * written), named `pc_bench_<random>`. The runtime migrates it (pgvector included) when it opens it.
 */
export async function createThrowawayDatabase(adminUrl: string): Promise<ThrowawayDatabase> {
  const name = `pc_bench_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    sizeBytes: () =>
      withClient(adminUrl, async (client) => {
        const result = await client.query<{ size: string }>('SELECT pg_database_size($1)::text AS size', [
          name,
        ]);
        return Number(result.rows[0]!.size);
      }),
    drop: () =>
      withClient(adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
