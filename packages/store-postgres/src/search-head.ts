import type { SearchHead, VectorIndexState } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { ActiveEntryCounts } from './active-entries.js';
import type { Database } from './database.js';
import { refuseDeletedScope } from './deleted-scopes.js';
import { liveAt } from './entry-version-row.js';

// What a search reads before its channels: the head, and whether the profile's vectors are complete
// there. Both remember the active entries the statistics tell (ActiveEntryCounts).

export async function searchHead(
  db: Kysely<Database>,
  counts: ActiveEntryCounts,
  scopeId: string,
  profileId: string,
): Promise<SearchHead | undefined> {
  // The head row and, when they describe the head, its statistics: one primary-key read each.
  const { rows } = await sql<HeadRow>`
    SELECT m.artifact_id, m.head_revision, vs.missing, st.active_entries AS active
    FROM pc_memories m
    LEFT JOIN pc_scope_vector_statistics vs
      ON vs.scope_id = m.scope_id AND vs.profile_id = ${profileId} AND vs.revision = m.head_revision
    LEFT JOIN pc_scope_statistics st ON st.scope_id = m.scope_id AND st.revision = m.head_revision
    WHERE m.scope_id = ${scopeId}`.execute(db);
  return toSearchHead(db, counts, scopeId, profileId, rows[0]);
}

/**
 * `searchHead` of several scopes (a search of several scopes): the same reads of each scope, as one
 * statement; in the order given. What only some scopes need (a deleted scope's tombstone, vectors
 * counted where the statistics describe an older revision) follows scope by scope, in order.
 */
export async function searchHeads(
  db: Kysely<Database>,
  counts: ActiveEntryCounts,
  scopeIds: readonly string[],
  profileId: string,
): Promise<(SearchHead | undefined)[]> {
  // The scopes named, joined on the scope (on Citus, each scope's rows on its own shard; RFC 0011).
  const { rows } = await sql<HeadRow & { scope_id: string }>`
    SELECT m.scope_id, m.artifact_id, m.head_revision, vs.missing, st.active_entries AS active
    FROM pc_memories m
    LEFT JOIN pc_scope_vector_statistics vs
      ON vs.scope_id = m.scope_id AND vs.profile_id = ${profileId} AND vs.revision = m.head_revision
    LEFT JOIN pc_scope_statistics st ON st.scope_id = m.scope_id AND st.revision = m.head_revision
    WHERE m.scope_id = ANY(${[...scopeIds]}::text[])`.execute(db);
  const byScope = new Map(rows.map((row) => [row.scope_id, row]));
  const heads: (SearchHead | undefined)[] = [];
  for (const scopeId of scopeIds) {
    heads.push(await toSearchHead(db, counts, scopeId, profileId, byScope.get(scopeId)));
  }
  return heads;
}

interface HeadRow {
  artifact_id: string;
  head_revision: number;
  missing: string | number | null;
  active: string | number | null;
}

/** A scope's search head from its head row; undefined, or ScopePurgedError, when it has none. */
async function toSearchHead(
  db: Kysely<Database>,
  counts: ActiveEntryCounts,
  scopeId: string,
  profileId: string,
  row: HeadRow | undefined,
): Promise<SearchHead | undefined> {
  if (!row) {
    await refuseDeletedScope(db, scopeId);
    return undefined;
  }
  const memory = { artifactId: row.artifact_id, scopeId, revision: row.head_revision };
  if (row.active !== null) counts.remember(scopeId, row.head_revision, Number(row.active));
  if (row.missing === null) {
    return { memory, vectorIndex: await vectorIndexState(db, counts, scopeId, row.head_revision, profileId) };
  }
  const missing = Number(row.missing);
  return { memory, vectorIndex: { profileId, missing, complete: missing === 0 } };
}

export async function vectorIndexState(
  db: Kysely<Database>,
  counts: ActiveEntryCounts,
  scopeId: string,
  revision: number,
  profileId: string,
): Promise<VectorIndexState> {
  // One primary-key read when the scope's statistics describe this revision; counted otherwise.
  const { rows } = await sql<{ missing: string | number; active: string | number | null }>`
    WITH kept AS MATERIALIZED (
      SELECT s.missing, (SELECT t.active_entries FROM pc_scope_statistics t
                         WHERE t.scope_id = ${scopeId} AND t.revision = s.revision) AS active
      FROM pc_scope_vector_statistics s
      WHERE s.scope_id = ${scopeId} AND s.profile_id = ${profileId} AND s.revision = ${revision}
    )
    SELECT k.missing, k.active FROM kept k
    UNION ALL
    SELECT count(*), NULL FROM pc_entry_versions v
    WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
      AND NOT EXISTS (SELECT 1 FROM pc_embeddings e
        WHERE e.scope_id = ${scopeId} AND e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})
    HAVING NOT EXISTS (SELECT 1 FROM kept)`.execute(db);
  const row = rows[0];
  if (row?.active !== null && row?.active !== undefined) {
    counts.remember(scopeId, revision, Number(row.active));
  }
  const missing = Number(row?.missing ?? 0);
  return { profileId, missing, complete: missing === 0 };
}
