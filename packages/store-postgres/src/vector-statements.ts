import type { VectorSearchQuery } from '@powercontext/memory-core';
import { type RawBuilder, sql } from 'kysely';
import { visibleAt } from './entry-version-row.js';
import { filterCondition } from './filter-sql.js';
import { type CandidateRow, purgeMarkOf, textArrayLiteral } from './store-sql.js';
import type { VectorDeltaRow } from './vector-index-delta.js';
import { quotedArrayLiteral, toSparseVectorLiteral, toVectorLiteral } from './vector-literal.js';

// The vector channel's statements (VectorChannel): the HNSW walk, the exact scan, the scoring of the
// candidates the vector index in memory chooses, and the delta that moves a held index forward.

/** A candidate the database scored for the index in memory, beside the scope's purge mark. */
export interface ScoredRow {
  entry_id: string | null;
  entry_version_id: string | null;
  cosine: number;
  purged: number | null;
}

/**
 * The vector channel of a scope that outgrew the exact scan: the nearest vectors by the same expression
 * as the scope's HNSW index (hnsw-indexes.ts), whose version is live and active at the revision, then
 * their full rows. The plan must not depend on statistics, which a large scope may lack: the scope is
 * compared as an expression (`scope_id || ''`), exactly as the partial index's predicate is written, so
 * the planner proves that index applies while the (scope, profile) b-tree cannot offer it a scan of the
 * scope plus a sort; the filter runs inside the walk, and pgvector's iterative scan (`strict_order`)
 * keeps walking while the visibility filter rejects rows. Exported for the plan test.
 */
export function hnswVectorSearch(query: VectorSearchQuery) {
  const literal = toVectorLiteral(query.vector);
  const dimension = sql.raw(String(query.vector.length));
  const distance = sql`e.embedding::vector(${dimension}) <=> ${literal}::vector(${dimension})`;
  return sql<CandidateRow & { cosine: number }>`
    WITH nearest AS MATERIALIZED (
      SELECT e.entry_version_id, ${distance} AS distance
      FROM pc_embeddings e
      WHERE e.profile_id = ${query.profileId} AND (e.scope_id || '') = ${query.scopeId}
        AND e.scope_id = ${query.scopeId}
        AND EXISTS (
          SELECT 1 FROM pc_entry_versions v
          WHERE v.scope_id = ${query.scopeId} AND v.entry_version_id = e.entry_version_id AND ${visibleAt(query.revision)} AND v.state = 'active'
            AND ${filterCondition(query.filter)})
      ORDER BY ${distance}
      LIMIT ${query.limit}
    )
    SELECT v.entry_id, v.entry_version_id, ${cosineOf(sql`n.distance`)} AS cosine
    FROM nearest n CROSS JOIN LATERAL (${versionOf(query.scopeId, sql`n.entry_version_id`)}) v
    ORDER BY ${cosineOf(sql`n.distance`)} DESC, v.entry_id, v.entry_version_id`;
}

/**
 * The exact vector channel: every vector of the scope and profile scored and sorted (vectors are stored
 * inline, migration 0004), then walked in score order, keeping those whose version is live and active
 * at the revision until `limit` (and the rows tied with the last) are found; their identities are the
 * answer. The lateral probe makes the walk a nested loop that keeps the score order.
 */
export function exactVectorSearch(query: VectorSearchQuery) {
  return sql<CandidateRow & { cosine: number }>`
    WITH top AS MATERIALIZED (
      SELECT r.entry_version_id, r.cosine
      FROM (
        SELECT e.entry_version_id, ${sparseCosineTo(query.vector)} AS cosine
        FROM pc_embeddings e WHERE e.scope_id = ${query.scopeId} AND e.profile_id = ${query.profileId}
        ORDER BY 2 DESC
      ) r
      CROSS JOIN LATERAL (
        SELECT 1 FROM pc_entry_versions v
        WHERE v.scope_id = ${query.scopeId} AND v.entry_version_id = r.entry_version_id
          AND ${visibleAt(query.revision)} AND v.state = 'active'
          AND ${filterCondition(query.filter)}
        LIMIT 1
      ) live
      ORDER BY r.cosine DESC
      FETCH FIRST (${query.limit}::bigint) ROWS WITH TIES
    )
    SELECT v.entry_id, v.entry_version_id, t.cosine
    FROM top t CROSS JOIN LATERAL (${versionOf(query.scopeId, sql`t.entry_version_id`)}) v
    ORDER BY t.cosine DESC, v.entry_id, v.entry_version_id
    LIMIT ${query.limit}`;
}

/** The exact scan's scores and order, over the given versions of the scope only. */
export function scoreVersions(query: VectorSearchQuery, entryVersionIds: readonly string[]) {
  return sql<CandidateRow & { cosine: number }>`
    SELECT v.entry_id, v.entry_version_id, ${sparseCosineTo(query.vector)} AS cosine
    FROM ${vectorsOf(query, entryVersionIds)}
    CROSS JOIN LATERAL (${versionOf(query.scopeId, sql`e.entry_version_id`)}) v
    ORDER BY 3 DESC, v.entry_id, v.entry_version_id
    LIMIT ${query.limit}`;
}

/**
 * The vectors of the given versions of the query's scope and profile, as `e`, each found by its key
 * (`vectorOf`).
 */
function vectorsOf(query: VectorSearchQuery, entryVersionIds: readonly string[]) {
  return sql`unnest(${quotedArrayLiteral(entryVersionIds)}::uuid[]) AS c(entry_version_id)
    CROSS JOIN LATERAL (${vectorOf(query.scopeId, sql`c.entry_version_id`, query.profileId)}) e`;
}

/**
 * The vector of one entry version of a scope and profile, looked up by its key: a lateral probe, since a
 * generic plan without table statistics (PGlite) otherwise read every vector of the scope through the
 * (scope, profile) index and filtered them (3 times slower at 5,000 entries).
 */
function vectorOf(
  scopeId: string | RawBuilder<string>,
  entryVersionId: RawBuilder<unknown>,
  profileId: string,
) {
  return sql`SELECT e.entry_version_id, e.embedding FROM pc_embeddings e
    WHERE e.scope_id = ${scopeId} AND e.entry_version_id = ${entryVersionId} AND e.profile_id = ${profileId}
    LIMIT 1`;
}

/**
 * The exact scan's answer for the candidates the vector index in memory chose (`candidates`, of the
 * query's scope): scored with the exact scan's expression and ordered as it orders, up to the limit,
 * beside the scope's purge mark (one row with no candidate when none is found).
 */
export function scoreHeldCandidates(query: VectorSearchQuery, candidates: readonly string[]) {
  return sql<ScoredRow>`
    WITH mark AS MATERIALIZED (
      SELECT ${purgeMarkOf(query.scopeId)} AS purged
    )
    SELECT m.purged, r.entry_id, r.entry_version_id, r.cosine FROM mark m LEFT JOIN LATERAL (
      SELECT v.entry_id, v.entry_version_id,
        ${sparseCosineTo(query.vector)} AS cosine
      FROM ${vectorsOf(query, candidates)}
      CROSS JOIN LATERAL (${versionOf(query.scopeId, sql`e.entry_version_id`)}) v
      ORDER BY 3 DESC, v.entry_id, v.entry_version_id
      LIMIT ${query.limit}
    ) r ON true`;
}

/**
 * `scoreHeldCandidates` of one query in several scopes, in one statement: every scope's candidates are
 * scored in one pass (each vector and version found by its key, with its own scope), then ranked within
 * their scope in the same order (cosine, entry id, entry version id) and cut to the limit; each scope's
 * rows (`at`: its place in `scopes`, from 1) come with its purge mark, in order. Measured on PGlite with
 * 4 scopes of 40 candidates: no slower than the 4 statements it replaces, where one lateral scoring per
 * scope took half as long again. Not for tables distributed by scope (each scope is read on its own
 * shard there).
 */
export function scoreHeldCandidatesOfScopes(
  query: Omit<VectorSearchQuery, 'scopeId' | 'revision'>,
  scopes: readonly { scopeId: string; candidates: readonly string[] }[],
) {
  const ids = scopes.flatMap((scope) => scope.candidates);
  const owners = scopes.flatMap((scope) => scope.candidates.map(() => scope.scopeId));
  const ats = scopes.flatMap((scope, at) => scope.candidates.map(() => at + 1));
  return sql<ScoredRow & { at: number }>`
    WITH s AS MATERIALIZED (
      SELECT s.at::int AS at, ${purgeMarkOf(sql<string>`s.scope_id`)} AS purged
      FROM unnest(${textArrayLiteral(scopes.map((scope) => scope.scopeId))}::text[]) WITH ORDINALITY AS s(scope_id, at)
    ), c AS MATERIALIZED (
      SELECT c.entry_version_id, c.scope_id, c.at
      FROM unnest(${quotedArrayLiteral(ids)}::uuid[], ${textArrayLiteral(owners)}::text[], ${`{${ats.join(',')}}`}::int[])
        AS c(entry_version_id, scope_id, at)
    ), scored AS MATERIALIZED (
      SELECT c.at, c.scope_id, e.entry_version_id, ${sparseCosineTo(query.vector)} AS cosine
      FROM c CROSS JOIN LATERAL (${vectorOf(sql<string>`c.scope_id`, sql`c.entry_version_id`, query.profileId)}) e
    ), ranked AS MATERIALIZED (
      SELECT r.at, v.entry_id, v.entry_version_id, r.cosine,
        row_number() OVER (PARTITION BY r.at ORDER BY r.cosine DESC, v.entry_id, v.entry_version_id) AS n
      FROM scored r CROSS JOIN LATERAL (${versionOf(sql<string>`r.scope_id`, sql`r.entry_version_id`)}) v
    )
    SELECT s.at, s.purged, r.entry_id, r.entry_version_id, r.cosine
    FROM s LEFT JOIN ranked r ON r.at = s.at AND r.n <= ${query.limit}
    ORDER BY s.at, r.n`;
}

/**
 * The cosine of each stored vector (`e.embedding`) to `vector`, as the exact scan computes it. The vector
 * index in memory relies on the database scoring its candidates with this same expression.
 */
function sparseCosineTo(vector: readonly number[]) {
  return cosineOf(sql`e.embedding <=> ${toSparseVectorLiteral(vector)}::sparsevec`);
}

/** 1 - cosine distance; a zero vector has no direction (NaN), which scores 0 instead of sorting first. */
function cosineOf(distance: ReturnType<typeof sql>) {
  return sql`coalesce(nullif(1 - (${distance}), 'NaN'::float8), 0)`;
}

/**
 * The delta of a (scope, profile) vector index from revision `from` to `to`, in one statement: the
 * purge mark; the versions written after `from` that are live and active at `to`, with their vector
 * (`added`); and the versions that a version written after `from` superseded (`gone`). Both read the
 * scope's versions by (scope, revision); each vector is read by its key (LATERAL, LIMIT 1: without
 * table statistics the planner would otherwise scan the scope's vectors).
 */
export function vectorDelta(scopeId: string, profileId: string, from: number, to: number) {
  return sql<VectorDeltaRow>`
    WITH mark AS MATERIALIZED (
      SELECT ${purgeMarkOf(scopeId)} AS purged
    ), written AS MATERIALIZED (
      SELECT v.entry_version_id, v.previous_version_id, v.state, v.superseded_revision
      FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.revision > ${from} AND v.revision <= ${to}
    )
    SELECT 'mark' AS kind, NULL::uuid AS entry_version_id, NULL::bytea AS vector, m.purged FROM mark m
    UNION ALL
    SELECT 'added', w.entry_version_id, e.vector, NULL
    FROM written w
    LEFT JOIN LATERAL (
      SELECT sparsevec_send(e.embedding) AS vector FROM pc_embeddings e
      WHERE e.scope_id = ${scopeId} AND e.entry_version_id = w.entry_version_id AND e.profile_id = ${profileId}
      LIMIT 1
    ) e ON true
    WHERE w.state = 'active' AND (w.superseded_revision IS NULL OR w.superseded_revision > ${to})
    UNION ALL
    SELECT 'gone', w.previous_version_id, NULL, NULL FROM written w WHERE w.previous_version_id IS NOT NULL`;
}

/**
 * The identity of one entry version, looked up by its key: a lateral probe, so that the few rows a
 * channel found are each joined by an index lookup. Joined plainly, a planner without statistics
 * (PGlite is never analysed) may scan every version of the table once per found row.
 */
function versionOf(scopeId: string | RawBuilder<string>, entryVersionId: RawBuilder<unknown>) {
  return sql`SELECT v.entry_id, v.entry_version_id FROM pc_entry_versions v
    WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ${entryVersionId} LIMIT 1`;
}
