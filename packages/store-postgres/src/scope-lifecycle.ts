import type { EntryVersion, ExportEntriesQuery, ScopeTombstone } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { readDeletedScope, toTombstone } from './deleted-scopes.js';
import { lockHead } from './entry-reads.js';
import { ENTRY_VERSION_COLUMNS, type EntryVersionRow, liveAt, toEntryVersion } from './entry-version-row.js';

// A scope's deletion and export (RFC 0015): the tombstone table of migration 0013, the one transaction
// that deletes every row of a scope, and the export's pages.

/**
 * Every table that holds rows of a scope, in an order the foreign keys allow (what names a version
 * before the versions, the versions before the revisions and the memory). The postings are found
 * through their primary key's scope prefix; the revisions through the memory's artifact id.
 */
const SCOPE_TABLES = [
  'pc_entities',
  'pc_embeddings',
  'pc_lexical_postings',
  'pc_lexical_projections',
  'pc_purged_versions',
  'pc_purged_entries',
  'pc_idempotency_keys',
  'pc_scope_vector_statistics',
  'pc_scope_statistics',
  'pc_entry_versions',
] as const;

/**
 * Deletes every row of the scope in one transaction that first locks its memory row (writers of the
 * scope queue behind it, then find no memory and a tombstone), and writes the tombstone.
 */
export function deleteScopeRows(
  db: Kysely<Database>,
  scopeId: string,
  deletedBy: string | null,
): Promise<{ tombstone: ScopeTombstone; status: 'deleted' | 'unchanged' } | undefined> {
  return db.transaction().execute(async (trx) => {
    const memory = await lockHead(trx, scopeId);
    if (!memory) {
      const earlier = await readDeletedScope(trx, scopeId);
      return earlier ? { tombstone: earlier, status: 'unchanged' as const } : undefined;
    }
    const { rows: counted } = await sql<{ entries: string | number }>`
      SELECT count(*) AS entries FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL`.execute(trx);
    for (const table of SCOPE_TABLES) {
      await sql`DELETE FROM ${sql.table(table)} WHERE scope_id = ${scopeId}`.execute(trx);
    }
    await sql`DELETE FROM pc_revisions WHERE scope_id = ${scopeId}`.execute(trx);
    await sql`DELETE FROM pc_memories WHERE scope_id = ${scopeId}`.execute(trx);
    const row = await trx
      .insertInto('pc_deleted_scopes')
      .values({
        scope_id: scopeId,
        artifact_id: memory.artifact_id,
        revision: memory.head_revision,
        entries: Number(counted[0]?.entries ?? 0),
        deleted_by: deletedBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { tombstone: toTombstone(row), status: 'deleted' as const };
  });
}

/** One page of an export: the active versions live at the revision, by (content hash, entry version id). */
export async function exportEntries(
  db: Kysely<Database>,
  query: ExportEntriesQuery,
): Promise<EntryVersion[]> {
  const after = query.after;
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE ${liveAt(query.scopeId, query.revision)} AND v.state = 'active'
      ${after ? sql`AND (v.content_hash, v.entry_version_id) > (${after.contentHash}, ${after.entryVersionId}::uuid)` : sql``}
    ORDER BY v.content_hash, v.entry_version_id LIMIT ${query.limit}`.execute(db);
  return rows.map(toEntryVersion);
}

export async function activeEntryCount(
  db: Kysely<Database>,
  scopeId: string,
  revision: number,
): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    SELECT count(*) AS n FROM pc_entry_versions v
    WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
