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

export interface MigrateOptions {
  /**
   * No other process can open the database while this one has it (an embedded data directory, held by
   * its lock file): a schema found current in one read is then taken as it is, without the advisory
   * lock, which would have no one to wait for. On PostgreSQL every open takes the lock (RFC 0011).
   */
  soleOpener?: boolean;
}

/**
 * Brings the schema to the latest migration, then records the text search configuration on first use
 * and refuses a different one later (the lexical index would no longer match the queries).
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  textSearchConfig: string,
  options: MigrateOptions = {},
): Promise<MigrationOutcome> {
  if (!TEXT_SEARCH_CONFIG.test(textSearchConfig)) {
    throw new StoreIncompatibleError(
      `textSearchConfig "${textSearchConfig}" is not a valid configuration name`,
    );
  }
  if (options.soleOpener && (await schemaIsCurrent(db, textSearchConfig))) return { applied: [] };
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

/**
 * For a sole opener: whether the open has nothing to do, read in one short statement: every migration
 * this version knows is applied, and no other, and the text search configuration recorded is this one
 * (and PostgreSQL still has it). The migrations commit with their rows in kysely_migration, so a schema
 * seen current here is complete. Anything else (a new database, a migration to apply, a configuration
 * that differs, a table that is missing) takes the locked path, which applies or reports it as it always
 * did. Most opens find the schema current: this spares them a dozen statements (about 0.1 s of a
 * `memory search` on PGlite).
 */
async function schemaIsCurrent(db: Kysely<Database>, textSearchConfig: string): Promise<boolean> {
  try {
    return await readSchemaIsCurrent(db, textSearchConfig);
  } catch {
    return false; // the locked path meets the same failure and reports it
  }
}

async function readSchemaIsCurrent(db: Kysely<Database>, textSearchConfig: string): Promise<boolean> {
  const known = Object.keys(await memoryMigrations.getMigrations());
  // A database without these tables fails the statement: schemaIsCurrent answers false.
  const { rows } = await sql<{ names: string[] | null; config: string | null; known: boolean }>`
    SELECT (SELECT array_agg(name) FROM kysely_migration) AS names,
           (SELECT value FROM pc_settings WHERE key = 'text_search_config') AS config,
           EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = ${textSearchConfig}) AS known`.execute(db);
  const state = rows[0];
  if (!state?.known || state.config !== textSearchConfig) return false;
  const applied = new Set(state.names ?? []);
  return applied.size === known.length && known.every((name) => applied.has(name));
}

async function migrateLocked(db: Kysely<Database>, textSearchConfig: string): Promise<MigrationOutcome> {
  // Kysely looks for its own tables in every schema unless told which: with the store's tables in one
  // schema of a database that holds others (a schema per tenant or per test, on the search path), it
  // would find another schema's and never create its own. They belong in the schema the store's own
  // tables go to, the first on the search path.
  const { rows: schemas } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(
    db,
  );
  const schema = schemas[0]?.schema ?? undefined;
  const { error, results } = await new Migrator({
    db,
    provider: memoryMigrations,
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
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
