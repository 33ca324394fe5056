import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresMemoryStore, replicaLagSeconds, schemaState } from './create-store.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';
import type { PostgresMemoryStore } from './postgres-memory-store.js';
import { postgresRateLimitsOf } from './rate-limits.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

let database: TestDatabase;
const stores: PostgresMemoryStore[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await database.drop();
});

async function open(options: { statementTimeoutMs?: number } = {}) {
  const store = await createPostgresMemoryStore({ connectionString: database.connectionString, ...options });
  stores.push(store);
  return store;
}

describe('PostgreSQL store, more than one process (RFC 0011)', () => {
  it('opens side by side: each migration is applied by one open only', async () => {
    const applied: string[][] = [];
    const opened = await Promise.all(
      [0, 1, 2].map(() =>
        createPostgresMemoryStore({
          connectionString: database.connectionString,
          onMigrated: ({ applied: names }) => applied.push(names),
        }),
      ),
    );
    stores.push(...opened);
    const all = applied.flat().sort();
    expect(all).toContain('0010_rate_limits');
    expect(new Set(all).size).toBe(all.length);
    expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
    expect(await schemaState(opened[0])).toEqual({ current: true, missing: [] });
  });

  it('waits for the migration lock another session holds', async () => {
    const holder = new pg.Client({ connectionString: database.connectionString });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
      let opened = false;
      const opening = open().then(() => {
        opened = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(opened).toBe(false);
      await holder.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
      await opening;
      expect(opened).toBe(true);
    } finally {
      await holder.end();
    }
  });

  it('keeps one token bucket per key for every pool: concurrent takes accept the bucket size only', async () => {
    const [a, b] = [await open(), await open()];
    const limits = [postgresRateLimitsOf(a)!, postgresRateLimitsOf(b)!];
    const limit = { requests: 5, windowSeconds: 3_600 };
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, n) => limits[n % 2]!.take('shared-key', limit)),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    const refused = decisions.find((decision) => !decision.allowed);
    // One token refills in 720 s at 5 per hour.
    expect(refused).toMatchObject({ allowed: false });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(700);
    expect((await limits[0]!.take('another-key', limit)).allowed).toBe(true);
  });

  it('reports a primary as not a standby when asked for replica lag', async () => {
    await expect(replicaLagSeconds(await open())).rejects.toThrow(/not a standby/u);
  });
});
