import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';

/**
 * Today's write path also writes the entry fields of migration 0012 (RFC 0014), which a schema before
 * it lacks: tests that write at an older schema add these stand-in columns first and drop them before
 * migrating forward, so 0012 then adds them with its defaults.
 */
export async function addEntryFieldsStandIn(db: Kysely<Database>): Promise<void> {
  await sql`ALTER TABLE pc_entry_versions ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
    ADD COLUMN pinned boolean NOT NULL DEFAULT false, ADD COLUMN occurred_at timestamptz`.execute(db);
}

export async function dropEntryFieldsStandIn(db: Kysely<Database>): Promise<void> {
  await sql`ALTER TABLE pc_entry_versions DROP COLUMN tags, DROP COLUMN pinned, DROP COLUMN occurred_at`.execute(
    db,
  );
}

/** Takes a database at the latest schema back to 0011: migration 0012's columns, indexes and record gone. */
export async function undoEntryFields(db: Kysely<Database>): Promise<void> {
  for (const index of ['kind', 'occurred', 'written', 'pinned']) {
    await sql.raw(`DROP INDEX pc_entry_versions_scope_${index}`).execute(db);
  }
  await dropEntryFieldsStandIn(db);
  await sql`ALTER TABLE pc_entry_versions ALTER COLUMN created_at SET DEFAULT now()`.execute(db);
  await sql`DELETE FROM kysely_migration WHERE name = '0012_entry_fields'`.execute(db);
}
