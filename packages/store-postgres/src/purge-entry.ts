import type {
  EntryState,
  ListChangesQuery,
  ListEntriesQuery,
  ProjectionNeighbour,
  PurgedChange,
  PurgedEntryMarker,
  PurgeEntryWrite,
  PurgeTombstone,
  RevisionOperation,
  VersionOperation,
} from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { deleteEntities } from './entity-index.js';
import { projectionParts } from './projection-parts.js';

/**
 * Purge (RFC 0002, "Purge"): erasing every version of an entry from every table, and reading what is
 * left (the tombstone and the ids and revision ranges of the erased versions, migration 0009).
 */

export interface ErasedVersionRow {
  entry_version_id: string;
  version: number;
  revision: number;
  superseded_revision: number | null;
  operation: string;
  state: EntryState;
  position_source: string | null;
}

/** The versions of an entry about to be erased, read before anything changes. */
export interface ErasePlan {
  versions: ErasedVersionRow[];
  /** The entry's current version (the last one). */
  current: ErasedVersionRow;
  /** The ordered sources its versions sat in: only their members can hold its words as context. */
  sources: string[];
  /** Embedding profiles the current version has a vector of. */
  embeddedProfiles: string[];
}

/** Reads what `eraseEntry` will erase: every version of the entry, oldest first. */
export async function planErase(db: Kysely<Database>, scopeId: string, entryId: string): Promise<ErasePlan> {
  const { rows: versions } = await sql<ErasedVersionRow>`
    SELECT v.entry_version_id, v.version, v.revision, v.superseded_revision, v.operation, v.state, v.position_source
    FROM pc_entry_versions v WHERE v.scope_id = ${scopeId} AND v.entry_id = ${entryId}::uuid
    ORDER BY v.version`.execute(db);
  const current = versions.at(-1);
  if (!current || current.superseded_revision !== null) {
    throw new Error(`entry ${entryId} has no current version to purge`);
  }
  const { rows: embedded } = await sql<{ profile_id: string }>`
    SELECT e.profile_id FROM pc_embeddings e
    WHERE e.scope_id = ${scopeId} AND e.entry_version_id = ${current.entry_version_id}::uuid`.execute(db);
  return {
    versions,
    current,
    sources: [...new Set(versions.flatMap((v) => (v.position_source === null ? [] : [v.position_source])))],
    embeddedProfiles: embedded.map((row) => row.profile_id),
  };
}

/**
 * BM25's share at the head of the projections a purge can change: the current projections of the
 * members of the entry's sources, and the entry's own. Read before and after the purge, the
 * difference moves the head's statistics (neighbour context never crosses a source).
 */
export async function currentProjectionsOf(
  db: Kysely<Database>,
  scopeId: string,
  plan: ErasePlan,
): Promise<{ n: number; length: number }> {
  const { rows } = await sql<{ n: string | number; len: number | string }>`
    SELECT count(*) AS n, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
    WHERE p.scope_id = ${scopeId} AND p.superseded_revision IS NULL AND (
      p.entry_version_id = ANY(${plan.versions.map((v) => v.entry_version_id)}::uuid[])
      OR p.entry_version_id IN (
        SELECT v.entry_version_id FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.position_source IS NOT NULL
          AND v.position_source = ANY(${plan.sources}::text[])))`.execute(db);
  return { n: Number(rows[0]?.n ?? 0), length: Number(rows[0]?.len ?? 0) };
}

/**
 * Erases every version of the planned entry in the scope, inside the write transaction that writes
 * `revision`: records the tombstone and the erased versions' ids and revision ranges; deletes the
 * versions' lexical postings and projections; rebuilds in place, without the erased versions, every
 * projection of another entry that held them as neighbour context (at any revision); deletes their
 * vectors and their entities (RFC 0013); deletes the version rows (text, kind, hash, sources, position, metadata, tsvector); and
 * deletes the scope's idempotency records whose stored result names the entry (migration 0007: a
 * revise's answer holds the text, a remember's request digest was taken over it). The purge's own
 * record, if it has a key, is written after this and holds ids only.
 */
export async function eraseEntry(
  db: Kysely<Database>,
  scopeId: string,
  purge: PurgeEntryWrite,
  revision: number,
  plan: ErasePlan,
): Promise<PurgeTombstone> {
  const { versions, current: last } = plan;
  const ids = versions.map((v) => v.entry_version_id);
  const erased = sql`${ids}::uuid[]`;

  const { rows: tombstoneRows } = await sql<{ purged_at: Date | string }>`
    INSERT INTO pc_purged_entries (scope_id, entry_id, entry_version_id, version, previous_version_id, revision, purged_by)
    VALUES (${scopeId}, ${purge.entryId}::uuid, ${purge.tombstoneVersionId}::uuid, ${last.version + 1},
      ${last.entry_version_id}::uuid, ${revision}, ${purge.purgedBy})
    RETURNING purged_at`.execute(db);
  await sql`
    INSERT INTO pc_purged_versions (entry_version_id, scope_id, entry_id, version, revision, superseded_revision, operation, state)
    SELECT v.entry_version_id, v.scope_id, v.entry_id, v.version, v.revision, coalesce(v.superseded_revision, ${revision}),
      v.operation, v.state
    FROM pc_entry_versions v WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ANY(${erased})`.execute(
    db,
  );

  // Every projection that indexes the erased text: the entry's own, and its neighbours' at any revision
  // (every projection of the scope is checked: a containment test per row, no index needed).
  const named = ids.map((id) => JSON.stringify([{ entryVersionId: id }]));
  const { rows: neighbours } = await sql<{
    projection_id: string;
    entry_version_id: string;
    context: unknown;
  }>`
    SELECT p.projection_id, p.entry_version_id, p.context FROM pc_lexical_projections p
    WHERE p.scope_id = ${scopeId} AND NOT (p.entry_version_id = ANY(${erased}))
      AND p.context @> ANY(${named}::jsonb[])`.execute(db);
  const { rows: own } = await sql<{ projection_id: string }>`
    SELECT p.projection_id FROM pc_lexical_projections p
    WHERE p.scope_id = ${scopeId} AND p.entry_version_id = ANY(${erased})`.execute(db);
  await deletePostings(
    db,
    scopeId,
    [...own, ...neighbours].map((row) => row.projection_id),
  );
  await sql`DELETE FROM pc_lexical_projections p WHERE p.scope_id = ${scopeId} AND p.entry_version_id = ANY(${erased})`.execute(
    db,
  );
  const kept = new Set(ids);
  await reprojectInPlace(
    db,
    scopeId,
    neighbours.map((row) => ({
      projectionId: row.projection_id,
      entryVersionId: row.entry_version_id,
      context: (parseJson(row.context) as ProjectionNeighbour[]).filter((n) => !kept.has(n.entryVersionId)),
    })),
  );
  await sql`DELETE FROM pc_embeddings e WHERE e.scope_id = ${scopeId} AND e.entry_version_id = ANY(${erased})`.execute(
    db,
  );
  await deleteEntities(db, scopeId, ids);
  await sql`DELETE FROM pc_entry_versions v WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ANY(${erased})`.execute(
    db,
  );
  // Entry ids are UUIDs, so a stored result that holds this one is a result about this entry.
  await sql`
    DELETE FROM pc_idempotency_keys k
    WHERE k.scope_id = ${scopeId} AND strpos(k.result, ${purge.entryId}) > 0`.execute(db);

  const purgedAt = tombstoneRows[0]!.purged_at;
  return {
    entryId: purge.entryId,
    entryVersionId: purge.tombstoneVersionId,
    version: last.version + 1,
    previousVersionId: last.entry_version_id,
    revision,
    purgedAt: toIso(purgedAt),
    purgedBy: purge.purgedBy,
    versions: versions.map((v) => ({
      entryVersionId: v.entry_version_id,
      version: v.version,
      revision: v.revision,
      operation: v.operation as VersionOperation,
      supersededRevision: v.superseded_revision ?? revision,
      state: v.state,
    })),
  };
}

/**
 * Deletes the postings of these projections through the postings' primary key: a projection's
 * postings are exactly the lexemes of its own version's tsvector and of its context versions'
 * (insertProjections), so they are found by (scope, any of those lexemes, any of these projections)
 * without reading the scope's other postings. The lexemes are gathered first, as one array, so the
 * plan is an index scan whatever the table statistics say (a join let the planner scan the scope).
 */
async function deletePostings(db: Kysely<Database>, scopeId: string, projectionIds: readonly string[]) {
  if (projectionIds.length === 0) return;
  const ids = sql`${[...projectionIds]}::bigint[]`;
  await sql`
    DELETE FROM pc_lexical_postings l
    WHERE l.scope_id = ${scopeId} AND l.projection_id = ANY(${ids}) AND l.lexeme = ANY(ARRAY(
      SELECT DISTINCT x.lexeme
      FROM pc_lexical_projections p
      CROSS JOIN LATERAL (
        SELECT p.entry_version_id AS source
        UNION ALL
        SELECT (n->>'entryVersionId')::uuid FROM jsonb_array_elements(p.context) n
      ) s
      CROSS JOIN LATERAL (
        SELECT v.search_vector FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = s.source LIMIT 1
      ) v
      CROSS JOIN LATERAL unnest(v.search_vector) x
      WHERE p.scope_id = ${scopeId} AND p.projection_id = ANY(${ids})))`.execute(db);
}

/**
 * Rebuilds projections in place (same id and revision range) with a new context: their length and
 * postings from their own version plus the remaining neighbours, weighted as insertProjections does.
 */
async function reprojectInPlace(
  db: Kysely<Database>,
  scopeId: string,
  projections: readonly { projectionId: string; entryVersionId: string; context: ProjectionNeighbour[] }[],
) {
  if (projections.length === 0) return;
  const { targets, sources, weights } = projectionParts(
    projections.map((p) => ({ ...p, target: p.projectionId })),
  );
  await sql`
    WITH parts AS MATERIALIZED (
      SELECT pt.projection_id, pt.weight, v.lexical_length, v.search_vector
      FROM unnest(${targets}::bigint[], ${sources}::uuid[], ${weights}::float8[]) AS pt(projection_id, source, weight)
      CROSS JOIN LATERAL (
        SELECT v.lexical_length, v.search_vector FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = pt.source LIMIT 1
      ) v
    ), sized AS (
      SELECT pt.projection_id, sum(pt.weight * pt.lexical_length) AS len FROM parts pt GROUP BY pt.projection_id
    ), updated AS (
      UPDATE pc_lexical_projections p SET context = s.context, lexical_length = coalesce(z.len, 0)
      FROM unnest(${projections.map((p) => p.projectionId)}::bigint[],
        ${projections.map((p) => JSON.stringify(p.context))}::jsonb[]) AS s(projection_id, context)
      LEFT JOIN sized z ON z.projection_id = s.projection_id
      WHERE p.scope_id = ${scopeId} AND p.projection_id = s.projection_id
      RETURNING p.projection_id
    )
    INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
    SELECT ${scopeId}, t.lexeme, pt.projection_id, sum(pt.weight * coalesce(array_length(t.positions, 1), 1))
    FROM parts pt CROSS JOIN LATERAL unnest(pt.search_vector) t
    WHERE EXISTS (SELECT 1 FROM updated u WHERE u.projection_id = pt.projection_id)
    GROUP BY pt.projection_id, t.lexeme`.execute(db);
}

interface TombstoneRow {
  entry_id: string;
  entry_version_id: string;
  version: number;
  previous_version_id: string;
  revision: number;
  purged_at: Date | string;
  purged_by: string | null;
}

/** The tombstone of a purged entry of the scope, with its erased versions oldest first. */
export async function readTombstone(
  db: Kysely<Database>,
  scopeId: string,
  entryId: string,
): Promise<PurgeTombstone | undefined> {
  const { rows } = await sql<TombstoneRow & { versions: unknown }>`
    SELECT e.entry_id, e.entry_version_id, e.version, e.previous_version_id, e.revision, e.purged_at, e.purged_by,
      (SELECT coalesce(jsonb_agg(jsonb_build_object(
          'entryVersionId', v.entry_version_id, 'version', v.version, 'revision', v.revision,
          'operation', v.operation, 'supersededRevision', v.superseded_revision, 'state', v.state) ORDER BY v.version), '[]')
       FROM pc_purged_versions v WHERE v.scope_id = e.scope_id AND v.entry_id = e.entry_id) AS versions
    FROM pc_purged_entries e WHERE e.scope_id = ${scopeId} AND e.entry_id = ${entryId}::uuid`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    version: row.version,
    previousVersionId: row.previous_version_id,
    ...purgeInfo(row),
    versions: parseJson(row.versions) as PurgeTombstone['versions'],
  };
}

/** Markers for the erased versions current at the query's revision, in listEntries' keyset. */
export async function listPurgedEntries(
  db: Kysely<Database>,
  query: ListEntriesQuery,
): Promise<PurgedEntryMarker[]> {
  const { rows } = await sql<PurgedVersionRow>`
    SELECT v.entry_id, v.entry_version_id, v.version, v.revision, v.operation, v.state,
      e.revision AS purge_revision, e.purged_at, e.purged_by
    FROM pc_purged_versions v JOIN pc_purged_entries e ON e.scope_id = v.scope_id AND e.entry_id = v.entry_id
    WHERE v.scope_id = ${query.scopeId} AND v.revision <= ${query.revision} AND v.superseded_revision > ${query.revision}
      ${query.state === 'all' ? sql`` : sql`AND v.state = ${query.state}`}
      ${query.afterEntryId === undefined ? sql`` : sql`AND v.entry_id > ${query.afterEntryId}::uuid`}
    ORDER BY v.entry_id LIMIT ${query.limit}`.execute(db);
  return rows.map((row) => ({
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    version: row.version,
    revision: row.revision,
    state: row.state,
    purged: true,
    purge: purgeInfo({ revision: row.purge_revision, purged_at: row.purged_at, purged_by: row.purged_by }),
  }));
}

/** The erased versions written in (from, to] and the purges of that range, in listChanges' keyset. */
export async function listPurgedChanges(
  db: Kysely<Database>,
  query: ListChangesQuery,
): Promise<PurgedChange[]> {
  const after = query.after;
  const { rows } = await sql<PurgedVersionRow>`
    SELECT c.* FROM (
      SELECT v.entry_id, v.entry_version_id, v.version, v.revision, v.operation, v.state,
        e.revision AS purge_revision, e.purged_at, e.purged_by
      FROM pc_purged_versions v JOIN pc_purged_entries e ON e.scope_id = v.scope_id AND e.entry_id = v.entry_id
      WHERE v.scope_id = ${query.scopeId} AND v.revision > ${query.fromRevision} AND v.revision <= ${query.toRevision}
      UNION ALL
      SELECT e.entry_id, e.entry_version_id, e.version, e.revision, 'purge', NULL, e.revision, e.purged_at, e.purged_by
      FROM pc_purged_entries e
      WHERE e.scope_id = ${query.scopeId} AND e.revision > ${query.fromRevision} AND e.revision <= ${query.toRevision}
    ) c
    ${after ? sql`WHERE (c.revision, c.entry_version_id) > (${after.revision}, ${after.entryVersionId}::uuid)` : sql``}
    ORDER BY c.revision, c.entry_version_id LIMIT ${query.limit}`.execute(db);
  return rows.map((row) => ({
    revision: row.revision,
    operation: row.operation as RevisionOperation,
    purged: true,
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    version: row.version,
    purge: purgeInfo({ revision: row.purge_revision, purged_at: row.purged_at, purged_by: row.purged_by }),
  }));
}

interface PurgedVersionRow {
  entry_id: string;
  entry_version_id: string;
  version: number;
  revision: number;
  operation: string;
  state: EntryState;
  purge_revision: number;
  purged_at: Date | string;
  purged_by: string | null;
}

function purgeInfo(row: { revision: number; purged_at: Date | string; purged_by: string | null }) {
  return { revision: row.revision, purgedAt: toIso(row.purged_at), purgedBy: row.purged_by };
}

function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
