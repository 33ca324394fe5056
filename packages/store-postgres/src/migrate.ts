import { StoreIncompatibleError, StoreUnavailableError } from '@powercontext/memory-core';
import { type Kysely, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { isUnavailable } from './store-errors.js';

const TEXT_SEARCH_CONFIG = /^[a-z_][a-z0-9_]*$/;

/**
 * The session-level advisory lock every opening process takes around its migrations (RFC 0005, "More
 * than one server"): servers started at the same instant on one database migrate one after the other,
 * and each one after the first finds the schema current. A fixed key of our own, `pc_migrate` in ASCII.
 */
export const MIGRATION_LOCK_KEY = 0x70635f6d696772n;

/** What one open did to the schema: the migrations it applied (empty when the schema was current). */
export interface MigrationOutcome {
  applied: string[];
}

/**
 * Brings the schema to the latest migration, then records the text search configuration on first use
 * and refuses a different one later (the lexical index would no longer match the queries).
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  textSearchConfig: string,
): Promise<MigrationOutcome> {
  if (!TEXT_SEARCH_CONFIG.test(textSearchConfig)) {
    throw new StoreIncompatibleError(
      `textSearchConfig "${textSearchConfig}" is not a valid configuration name`,
    );
  }
  // One connection holds the lock for the whole open: creating kysely's own bookkeeping tables, the
  // migrations and the settings row. The lock is released with the session if the process dies.
  return db.connection().execute(async (session) => {
    await sql`SELECT pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(session);
    try {
      return await migrateLocked(session, textSearchConfig);
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(session).catch(() => {});
    }
  });
}

async function migrateLocked(db: Kysely<Database>, textSearchConfig: string): Promise<MigrationOutcome> {
  const { error, results } = await new Migrator({ db, provider: memoryMigrations }).migrateToLatest();
  if (error) {
    if (isUnavailable(error))
      throw new StoreUnavailableError('The database is unavailable', { cause: error });
    // No failed migration means the failure came before any ran (reading or locking the migration
    // tables, e.g. a database that does not exist or a role without rights): say that, not "unknown".
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const step = failed ? `Migration ${failed} failed` : 'Reading the schema version failed';
    throw new StoreIncompatibleError(`${step}: ${(error as Error).message}`, { cause: error });
  }
  const known = await sql<{ exists: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = ${textSearchConfig}) AS exists`.execute(db);
  if (!known.rows[0]?.exists) {
    throw new StoreIncompatibleError(`PostgreSQL has no text search configuration "${textSearchConfig}"`);
  }
  await db
    .insertInto('pc_settings')
    .values({ key: 'text_search_config', value: textSearchConfig })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  const stored = await db
    .selectFrom('pc_settings')
    .select('value')
    .where('key', '=', 'text_search_config')
    .executeTakeFirstOrThrow();
  if (stored.value !== textSearchConfig) {
    throw new StoreIncompatibleError(
      `This database indexes text with the "${stored.value}" configuration; it cannot be opened with "${textSearchConfig}"`,
    );
  }
  return {
    applied: (results ?? []).filter((result) => result.status === 'Success').map((r) => r.migrationName),
  };
}
