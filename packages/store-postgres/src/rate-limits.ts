import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import type { PostgresMemoryStore } from './postgres-memory-store.js';
import { guardStoreErrors } from './store-errors.js';

export type SharedRateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Token buckets kept in the database (table pc_rate_limits, migration 0010), so every server process
 * on one database spends one budget per key. `take` refills the key's bucket for the time since its
 * last update, takes one token when there is one, and says which, in one statement: the row lock of
 * the upsert orders concurrent takes of one key, across processes.
 */
export class PostgresRateLimits {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async take(keyId: string, limit: { requests: number; windowSeconds: number }): Promise<SharedRateDecision> {
    const capacity = limit.requests;
    const perSecond = limit.requests / limit.windowSeconds;
    // The refill, written once: clock_timestamp() (not now()) so a take that waited for the row lock
    // counts the time up to its own update, and never a negative interval.
    const refilled = sql<number>`LEAST(${capacity}::float8, pc_rate_limits.tokens
      + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - pc_rate_limits.updated_at)) * ${perSecond}::float8)`;
    const result = await guardStoreErrors(() =>
      sql<{ tokens: number; allowed: boolean }>`
        INSERT INTO pc_rate_limits (key_id, tokens, allowed, updated_at)
        VALUES (${keyId}, ${capacity - 1}::float8, ${capacity >= 1}, clock_timestamp())
        ON CONFLICT (key_id) DO UPDATE SET
          tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
          allowed = ${refilled} >= 1,
          updated_at = clock_timestamp()
        RETURNING tokens, allowed`.execute(this.#db),
    );
    const row = result.rows[0]!;
    if (row.allowed) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - Number(row.tokens)) / perSecond)),
    };
  }
}

const databases = new WeakMap<PostgresMemoryStore, Kysely<Database>>();

/** Remembers the database of a store opened here, for the shared rate limits. */
export function rememberDatabase(store: PostgresMemoryStore, db: Kysely<Database>): void {
  databases.set(store, db);
}

/** Rate limits kept in the database of a store opened by createPostgresMemoryStore. */
export function postgresRateLimitsOf(store: unknown): PostgresRateLimits | undefined {
  const db = databases.get(store as PostgresMemoryStore);
  return db ? new PostgresRateLimits(db) : undefined;
}
