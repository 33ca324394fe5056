import type {
  EntryVersion,
  ListChangesQuery,
  ListEntriesQuery,
  MemoryRef,
  RevisionChange,
  VersionOperation,
} from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { ENTRY_VERSION_COLUMNS, type EntryVersionRow, liveAt, toEntryVersion } from './entry-version-row.js';

// Reads of a scope's head, revisions and entry versions: plain statements, shared by the store's
// public reads and by a write's transaction (which passes itself as `db`).

export async function readHead(db: Kysely<Database>, scopeId: string): Promise<MemoryRef | undefined> {
  const row = await db
    .selectFrom('pc_memories')
    .select(['artifact_id', 'head_revision'])
    .where('scope_id', '=', scopeId)
    .executeTakeFirst();
  return row ? { artifactId: row.artifact_id, scopeId, revision: row.head_revision } : undefined;
}

/**
 * Locks the scope's head row for the rest of the transaction (writers of the scope queue behind it)
 * and returns it; undefined for a scope never written.
 */
export function lockHead(trx: Kysely<Database>, scopeId: string) {
  return trx
    .selectFrom('pc_memories')
    .select(['artifact_id', 'head_revision'])
    .where('scope_id', '=', scopeId)
    .forUpdate()
    .executeTakeFirst();
}

export async function revisionExists(
  db: Kysely<Database>,
  scopeId: string,
  revision: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('pc_revisions as r')
    .innerJoin('pc_memories as m', 'm.artifact_id', 'r.artifact_id')
    .select('r.revision')
    .where('m.scope_id', '=', scopeId)
    .where('r.revision', '=', revision)
    .executeTakeFirst();
  return row !== undefined;
}

export async function entryAt(db: Kysely<Database>, scopeId: string, entryId: string, revision: number) {
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE ${liveAt(scopeId, revision)} AND v.entry_id = ${entryId}::uuid`.execute(db);
  return rows[0] ? toEntryVersion(rows[0]) : undefined;
}

export async function entryVersion(db: Kysely<Database>, scopeId: string, entryVersionId: string) {
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ${entryVersionId}::uuid`.execute(db);
  return rows[0] ? toEntryVersion(rows[0]) : undefined;
}

export async function entryVersions(
  db: Kysely<Database>,
  scopeId: string,
  entryVersionIds: readonly string[],
): Promise<Map<string, EntryVersion>> {
  if (entryVersionIds.length === 0) return new Map<string, EntryVersion>();
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE v.entry_version_id = ANY(${[...entryVersionIds]}::uuid[]) AND v.scope_id = ${scopeId}`.execute(db);
  return new Map(rows.map((row) => [row.entry_version_id, toEntryVersion(row)]));
}

export async function listEntries(db: Kysely<Database>, query: ListEntriesQuery): Promise<EntryVersion[]> {
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE ${liveAt(query.scopeId, query.revision)}
      ${query.state === 'all' ? sql`` : sql`AND v.state = ${query.state}`}
      ${query.afterEntryId === undefined ? sql`` : sql`AND v.entry_id > ${query.afterEntryId}::uuid`}
    ORDER BY v.entry_id LIMIT ${query.limit}`.execute(db);
  return rows.map(toEntryVersion);
}

export async function listChanges(db: Kysely<Database>, query: ListChangesQuery): Promise<RevisionChange[]> {
  const after = query.after;
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE v.scope_id = ${query.scopeId} AND v.revision > ${query.fromRevision} AND v.revision <= ${query.toRevision}
      ${after ? sql`AND (v.revision, v.entry_version_id) > (${after.revision}, ${after.entryVersionId}::uuid)` : sql``}
    ORDER BY v.revision, v.entry_version_id LIMIT ${query.limit}`.execute(db);
  return rows.map((row) => ({
    revision: row.revision,
    operation: row.operation as VersionOperation,
    version: toEntryVersion(row),
  }));
}

/** The active versions live at the revision whose content hash is one of `hashes`, by hash. */
export async function findActiveByHash(
  db: Kysely<Database>,
  scopeId: string,
  revision: number,
  hashes: readonly string[],
): Promise<Map<string, EntryVersion>> {
  if (hashes.length === 0) return new Map<string, EntryVersion>();
  const { rows } = await sql<EntryVersionRow>`
    SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
    WHERE ${liveAt(scopeId, revision)} AND v.state = 'active' AND v.content_hash = ANY(${[...hashes]}::text[])
    ORDER BY v.revision DESC, v.entry_id DESC`.execute(db);
  return new Map(rows.map((row) => [row.content_hash, toEntryVersion(row)]));
}

export async function listScopes(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('pc_memories').select('scope_id').orderBy('scope_id').execute()).map(
    (r) => r.scope_id,
  );
}
