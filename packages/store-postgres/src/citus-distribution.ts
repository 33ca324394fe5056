import { StoreIncompatibleError } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';
import { SESSION_SETTINGS } from './session-settings.js';

/** How the store's tables are laid out: on one PostgreSQL, or distributed by scope on Citus (RFC 0011). */
export type Distribution = 'none' | 'citus';

/**
 * The tables of a scope's rows, co-located on `scope_id` with `pc_memories` (first: the others are
 * co-located with it). Since migration 0015 each of their keys includes the scope, so every statement of
 * one scope reads and writes one shard.
 */
export const SCOPE_TABLES = [
  'pc_memories',
  'pc_revisions',
  'pc_entry_versions',
  'pc_lexical_projections',
  'pc_lexical_postings',
  'pc_embeddings',
  'pc_entities',
  'pc_scope_statistics',
  'pc_scope_vector_statistics',
  'pc_idempotency_keys',
  'pc_purged_entries',
  'pc_purged_versions',
  'pc_deleted_scopes',
] as const;

/** The small global tables, copied to every node: the settings and the embedding profiles. */
export const REFERENCE_TABLES = ['pc_settings', 'pc_embedding_profiles'] as const;

/**
 * The cause of the StoreIncompatibleError an open with `distribution: 'citus'` fails with on a database
 * without the citus extension, so that a caller can name its own setting (the runtime does).
 */
export class CitusMissingError extends Error {
  override readonly name = 'CitusMissingError';
}

/** What `distributeOnCitus` did: the tables it distributed or copied now (empty when all already were). */
export interface DistributionOutcome {
  distributed: string[];
}

/**
 * On a Citus coordinator, makes the store's tables distributed by scope (RFC 0011, "Sharding with
 * Citus"): the scope tables hash-distributed on `scope_id` and co-located with `pc_memories`, the global
 * tables reference tables. The rate limits (`pc_rate_limits`, per API key) stay a plain table of the
 * coordinator: their update takes `clock_timestamp()`, a volatile function Citus refuses in an update of
 * a distributed table, and every request passes through the coordinator anyway. Under the migration
 * lock, in one transaction, and idempotent: a table Citus already knows is left as it is, so every open
 * of a server may ask for it. Citus refuses to distribute a table that a foreign key links to a table it
 * does not yet know, so the foreign keys between the store's tables are dropped first and added back
 * last (the data they checked does not change meanwhile; adding them back checks it again). Rows already
 * in a table are copied into its shards, and the coordinator's local copy is then emptied.
 *
 * Throws StoreIncompatibleError on a database without the `citus` extension (plain PostgreSQL): asking
 * for distribution there is a configuration error, never ignored.
 */
export async function distributeOnCitus(db: Kysely<Database>): Promise<DistributionOutcome> {
  return db.connection().execute(async (session) => {
    await sql`SELECT pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(session);
    try {
      await assertCitus(session);
      // The HNSW walk of a large scope runs on a worker, with the worker's settings: the database gets
      // the store's session settings (SESSION_SETTINGS) as its defaults, which Citus propagates to
      // every node (ALTER DATABASE ... SET), unless it has them already.
      for (const [name, value] of SESSION_SETTINGS) {
        const { rows: set } = await sql<{ present: boolean }>`
          SELECT EXISTS (
            SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
            WHERE d.datname = current_database() AND s.setrole = 0 AND ${`${name}=${value}`} = ANY(s.setconfig)
          ) AS present`.execute(session);
        if (set[0]?.present) continue;
        const { rows: command } = await sql<{ text: string }>`
          SELECT format('ALTER DATABASE %I SET %s = %L', current_database(), ${name}::text, ${value}::text) AS text`.execute(
          session,
        );
        await sql.raw(command[0]!.text).execute(session);
      }
      const known = new Set((await citusLayout(session)).map((layout) => layout.table));
      const wanted = [...SCOPE_TABLES, ...REFERENCE_TABLES];
      const missing = wanted.filter((table) => !known.has(table));
      if (missing.length === 0) return { distributed: [] };
      await session.transaction().execute(async (trx) => {
        // A foreign key to a reference table makes Citus keep to one connection per node in the
        // transaction: every step runs that way from the start.
        await sql`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`.execute(trx);
        const { rows: foreignKeys } = await sql<{ table: string; name: string; definition: string }>`
          SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
          FROM pg_constraint c
          WHERE c.contype = 'f' AND c.conrelid::regclass::text = ANY(${wanted}::text[])
          ORDER BY c.conrelid::regclass::text, c.conname`.execute(trx);
        for (const key of foreignKeys) {
          await sql`ALTER TABLE ${sql.id(key.table)} DROP CONSTRAINT ${sql.id(key.name)}`.execute(trx);
        }
        for (const table of SCOPE_TABLES) {
          if (known.has(table)) continue;
          await (table === 'pc_memories'
            ? sql`SELECT create_distributed_table(${table}, 'scope_id')`
            : sql`SELECT create_distributed_table(${table}, 'scope_id', colocate_with => 'pc_memories')`
          ).execute(trx);
        }
        for (const table of REFERENCE_TABLES) {
          if (!known.has(table)) await sql`SELECT create_reference_table(${table})`.execute(trx);
        }
        for (const key of foreignKeys) {
          await sql`ALTER TABLE ${sql.id(key.table)} ADD CONSTRAINT ${sql.id(key.name)} ${sql.raw(key.definition)}`.execute(
            trx,
          );
        }
      });
      // The rows copied into the shards stay on the coordinator's disk until emptied (outside the
      // transaction that distributed them, as Citus asks).
      for (const table of missing) {
        await sql`SELECT truncate_local_data_after_distributing_table(${table}::regclass)`.execute(session);
      }
      return { distributed: missing };
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(session).catch(() => {});
    }
  });
}

/**
 * Throws StoreIncompatibleError (its cause a CitusMissingError) unless the database has the `citus`
 * extension. An open with `distribution: 'citus'` asks this before it migrates, so that on plain
 * PostgreSQL it writes nothing.
 */
export async function assertCitus(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ version: string }>`
    SELECT extversion AS version FROM pg_extension WHERE extname = 'citus'`.execute(db);
  if (rows.length > 0) return;
  const reason =
    'distribution "citus" needs a Citus coordinator: this database has no citus extension ' +
    '(CREATE EXTENSION citus, with the worker nodes added), or leave the distribution at "none"';
  throw new StoreIncompatibleError(reason, { cause: new CitusMissingError(reason) });
}

/**
 * How the store's tables are laid out in Citus: each table Citus knows in the current schema, with its
 * method (`hash` on a column, or `reference`) and co-location group. `distributeOnCitus` reads it to
 * leave alone what is distributed already; the checks of a distributed database read it too.
 */
export async function citusLayout(
  db: Kysely<Database>,
): Promise<{ table: string; method: 'hash' | 'reference'; column: string | null; colocation: number }[]> {
  const { rows } = await sql<{ table: string; method: string; column: string | null; colocation: number }>`
    SELECT p.logicalrelid::regclass::text AS table, p.partmethod AS method,
      CASE WHEN p.partmethod = 'h' THEN column_to_column_name(p.logicalrelid, p.partkey) END AS column,
      p.colocationid AS colocation
    FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
    WHERE c.relnamespace = current_schema()::regnamespace
    ORDER BY 1`.execute(db);
  return rows.map((row) => ({
    table: row.table,
    method: row.method === 'h' ? 'hash' : 'reference',
    column: row.column,
    colocation: Number(row.colocation),
  }));
}
