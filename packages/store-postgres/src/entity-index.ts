import { extractEntities } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';

// The entity index (RFC 0013; migration 0011): for every active version, the entities of its text as
// memory-core's extractor finds them, one row each in pc_entities. A row belongs to its version, so it
// is visible at exactly the revisions the version is live at (a join to the version row decides), and
// it is deleted with the version by a purge. Inactive versions hold none, as they hold no postings.

/** The versions a write inserts, as far as the entity index needs them. */
export interface EntityIndexedVersion {
  entryVersionId: string;
  text: string;
  state: 'active' | 'inactive';
}

/** Inserts the entities of the written versions that are active, in the write's transaction. */
export async function insertEntities(
  db: Kysely<Database>,
  scopeId: string,
  versions: readonly EntityIndexedVersion[],
): Promise<void> {
  const ids: string[] = [];
  const entities: string[] = [];
  for (const version of versions) {
    if (version.state !== 'active') continue;
    for (const entity of extractEntities(version.text)) {
      ids.push(version.entryVersionId);
      entities.push(entity);
    }
  }
  if (ids.length === 0) return;
  await sql`
    INSERT INTO pc_entities (scope_id, entity, entry_version_id)
    SELECT ${scopeId}, e.entity, e.entry_version_id
    FROM unnest(${ids}::uuid[], ${entities}::text[]) AS e(entry_version_id, entity)`.execute(db);
}

/** Deletes the entities of these versions (a purge erases them before the version rows). */
export async function deleteEntities(
  db: Kysely<Database>,
  scopeId: string,
  entryVersionIds: readonly string[],
): Promise<void> {
  if (entryVersionIds.length === 0) return;
  await sql`
    DELETE FROM pc_entities e
    WHERE e.scope_id = ${scopeId} AND e.entry_version_id = ANY(${[...entryVersionIds]}::uuid[])`.execute(db);
}

const BACKFILL_BATCH = 1_000;

/**
 * Fills the entity index for versions written before it existed (migration 0011), in batches of
 * active versions by id. Returns how many versions it read.
 */
export async function backfillEntities(db: Kysely<Database>): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let read = 0;
  for (;;) {
    const { rows } = await sql<{ entry_version_id: string; scope_id: string; text: string }>`
      SELECT v.entry_version_id, v.scope_id, v.text FROM pc_entry_versions v
      WHERE v.state = 'active' AND v.entry_version_id > ${after}::uuid
      ORDER BY v.entry_version_id LIMIT ${BACKFILL_BATCH}`.execute(db);
    if (rows.length === 0) return read;
    const scopes = new Map<string, EntityIndexedVersion[]>();
    for (const row of rows) {
      const list = scopes.get(row.scope_id) ?? [];
      list.push({ entryVersionId: row.entry_version_id, text: row.text, state: 'active' });
      scopes.set(row.scope_id, list);
    }
    for (const [scopeId, versions] of scopes) await insertEntities(db, scopeId, versions);
    read += rows.length;
    after = rows.at(-1)!.entry_version_id;
  }
}
