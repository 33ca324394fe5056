import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Where the PostgreSQL tests connect to create their throw-away databases. They never skip. */
export const ADMIN_DATABASE_URL =
  process.env.POWERCONTEXT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  connectionString: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test file; `drop` removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `pc_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
