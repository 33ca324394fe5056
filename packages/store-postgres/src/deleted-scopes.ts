import { ScopePurgedError, type ScopeTombstone } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';

// The tombstones of deleted scopes (RFC 0015, migration 0013), read where a read or write finds no memory.

interface TombstoneRow {
  scope_id: string;
  artifact_id: string;
  revision: number;
  entries: string | number;
  deleted_at: Date | string;
  deleted_by: string | null;
}

export function toTombstone(row: TombstoneRow): ScopeTombstone {
  return {
    scopeId: row.scope_id,
    artifactId: row.artifact_id,
    revision: row.revision,
    entries: Number(row.entries),
    deletedAt: new Date(row.deleted_at).toISOString(),
    deletedBy: row.deleted_by,
  };
}

export async function readDeletedScope(
  db: Kysely<Database>,
  scopeId: string,
): Promise<ScopeTombstone | undefined> {
  const row = await db
    .selectFrom('pc_deleted_scopes')
    .selectAll()
    .where('scope_id', '=', scopeId)
    .executeTakeFirst();
  return row ? toTombstone(row) : undefined;
}

/**
 * Throws ScopePurgedError when the scope was deleted; called where a read or write finds no memory (a
 * scope never written, or deleted: the rare path). A database before migration 0013 has no deleted
 * scopes, and the migration tests write to such databases with this code: the table is looked up first
 * (one catalog read), so the statement never names a table that is not there, which inside a write
 * transaction would abort it.
 */
export async function refuseDeletedScope(db: Kysely<Database>, scopeId: string): Promise<void> {
  const { rows } = await sql<{ present: boolean }>`
    SELECT to_regclass('pc_deleted_scopes') IS NOT NULL AS present`.execute(db);
  if (!rows[0]?.present) return;
  const tombstone = await readDeletedScope(db, scopeId);
  if (tombstone) throw new ScopePurgedError(tombstone);
}
