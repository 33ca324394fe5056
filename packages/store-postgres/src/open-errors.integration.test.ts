import { StoreIncompatibleError, StoreUnavailableError } from '@powercontext/memory-core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CitusMissingError } from './citus-distribution.js';
import { createPostgresMemoryStore } from './create-store.js';
import { describeConnectionTarget } from './store-errors.js';
import { ADMIN_DATABASE_URL, createTestDatabase } from './testing-support/test-database.js';

/** The admin URL with another database, role, port or password. */
function variant(change: (url: URL) => void): string {
  const url = new URL(ADMIN_DATABASE_URL);
  change(url);
  return url.toString();
}

async function openError(connectionString: string): Promise<Error> {
  const store = await createPostgresMemoryStore({ connectionString }).catch((error: Error) => error);
  if (!(store instanceof Error)) {
    await store.close();
    throw new Error('the store opened');
  }
  return store;
}

describe('a PostgreSQL store that cannot be opened says which database, which host and what failed', () => {
  it('names a database that does not exist (on 6a3d005: "Migration unknown failed")', async () => {
    const url = variant((u) => {
      u.pathname = '/does_not_exist_pc';
    });
    const error = await openError(url);
    expect(error).toBeInstanceOf(StoreIncompatibleError);
    const host = new URL(ADMIN_DATABASE_URL);
    expect(error.message).toContain(
      `database "does_not_exist_pc" on ${host.hostname}:${host.port || '5432'}`,
    );
    expect(error.message).toContain('the database does not exist');
    expect(error.message).not.toContain('Migration unknown');
  });

  it('names a role the server refuses', async () => {
    const error = await openError(
      variant((u) => {
        u.username = 'no_such_role_pc';
      }),
    );
    expect(error).toBeInstanceOf(StoreIncompatibleError);
    expect(error.message).toContain('as role "no_such_role_pc"');
    expect(error.message).toMatch(/authentication failed|role "no_such_role_pc" does not exist/u);
    expect(error.message).not.toContain('Migration unknown');
  });

  it('names the host and port of a server that does not answer, never the password', async () => {
    const error = await openError(
      variant((u) => {
        u.port = '5999';
        u.password = 'pc-secret-pw';
      }),
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).toMatch(/Cannot reach PostgreSQL, database "[^"]+" on [^ ]+:5999/u);
    expect(error.message).toContain('connection refused');
    expect(error.message).not.toContain('pc-secret-pw');
  });

  it('refuses distribution "citus" on a database without Citus, before writing anything', async () => {
    const database = await createTestDatabase();
    try {
      const error = await createPostgresMemoryStore({
        connectionString: database.connectionString,
        distribution: 'citus',
      }).catch((failure: Error) => failure);
      expect(error).toBeInstanceOf(StoreIncompatibleError);
      expect((error as Error).cause).toBeInstanceOf(CitusMissingError);
      expect((error as Error).message).toContain('distribution "citus" needs a Citus coordinator');
      const client = new pg.Client({ connectionString: database.connectionString });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
        );
        expect(rows[0]?.n).toBe(0);
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
    }
  });

  it('describes a target from the URL without its password or parameters', () => {
    expect(describeConnectionTarget('postgres://app:hunter2@db.internal:6543/memory?sslmode=require')).toBe(
      'database "memory" on db.internal:6543 as role "app"',
    );
    expect(describeConnectionTarget('host=/tmp dbname=x')).not.toContain('dbname');
  });
});
