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
        // A pool's end resolves once its clients are told to end, before their server processes
        // have gone: forcing the drop then would hand a closing client a "terminating connection"
        // error that nothing handles. Wait a little for them to leave; force only what stays.
        for (let waited = 0; waited < 3_000; waited += 25) {
          const { rows } = await client.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
