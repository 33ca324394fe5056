import type {
  ChannelCandidate,
  EntityNeighbourQuery,
  EntitySearchQuery,
  EntitySearchResult,
} from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { liveAt, visibleAt } from './entry-version-row.js';
import { keptBy } from './filter-sql.js';
import { executePrepared } from './prepared.js';

// The reads of the entity and graph channels (RFC 0013) over the entity index (entity-index.ts). Both
// are prepared statements whose lists travel as JSON text (prepared statements take scalar arguments
// here), return identities and scores only, and score as the in-memory store does: IDF
// ln(1 + (N - df + 0.5) / (df + 0.5)) over the active versions at the revision, summed per version in
// the entities' code-unit order (collation "C") so equal sets of entities give equal scores.

/** N: the active entries at the revision, from the scope's statistics row when it is of that revision. */
function activeEntriesAt(scopeId: string, revision: number) {
  return sql`stats AS MATERIALIZED (
    SELECT coalesce(
      (SELECT t.active_entries::float8 FROM pc_scope_statistics t WHERE t.scope_id = ${scopeId} AND t.revision = ${revision}),
      (SELECT count(*)::float8 FROM pc_entry_versions v WHERE ${liveAt(scopeId, revision)} AND v.state = 'active')
    ) AS n
  )`;
}

/** The holders of the entities of `listed` (a CTE with an `entity` column) live and active at the revision. */
function holdersOf(listed: string, scopeId: string, revision: number) {
  return sql`
    SELECT e.entity, e.entry_version_id, v.entry_id
    FROM ${sql.table(listed)} l
    JOIN pc_entities e ON e.scope_id = ${scopeId} AND e.entity = l.entity
    CROSS JOIN LATERAL (
      SELECT v.entry_id FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.entry_version_id = e.entry_version_id
        AND ${visibleAt(revision)} AND v.state = 'active'
      LIMIT 1
    ) v`;
}

const SUMMED_IDF = sql`sum(ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) ORDER BY m.entity COLLATE "C")`;

interface ScoredRow {
  entry_id: string | null;
  entry_version_id: string | null;
  score: number | string | null;
  matched: number | null;
}

function toCandidates(rows: readonly ScoredRow[]): ChannelCandidate[] {
  return rows
    .filter((row) => row.entry_version_id !== null)
    .map((row, index) => ({
      entryId: row.entry_id!,
      entryVersionId: row.entry_version_id!,
      rank: index + 1,
      score: Number(row.score),
      matchedTerms: Number(row.matched),
    }));
}

export async function entitySearch(
  db: Kysely<Database>,
  query: EntitySearchQuery,
): Promise<EntitySearchResult> {
  const { scopeId, revision } = query;
  const rows = await executePrepared(
    db,
    sql<ScoredRow & { active_entries: number | string }>`
    WITH q AS MATERIALIZED (
      SELECT DISTINCT x.entity FROM jsonb_array_elements_text(${JSON.stringify(query.entities)}::jsonb) AS x(entity)
    ), ${activeEntriesAt(scopeId, revision)}, matches AS MATERIALIZED (${holdersOf('q', scopeId, revision)}
    ), df AS MATERIALIZED (
      SELECT m.entity, count(*)::float8 AS df FROM matches m CROSS JOIN stats s GROUP BY m.entity, s.n
      HAVING count(*) <= greatest(2, floor(${query.maxDocumentShare ?? 1}::float8 * s.n))
    ), scored AS MATERIALIZED (
      SELECT m.entry_id, m.entry_version_id, ${SUMMED_IDF} AS score, count(*)::int AS matched
      FROM matches m JOIN df d USING (entity) CROSS JOIN stats s
      WHERE ${keptBy(scopeId, query.filter, sql`m.entry_version_id`)}
      GROUP BY m.entry_id, m.entry_version_id
    ), top AS MATERIALIZED (
      SELECT * FROM scored c ORDER BY c.score DESC, c.entry_id, c.entry_version_id LIMIT ${query.limit}
    )
    SELECT s.n AS active_entries, t.entry_id, t.entry_version_id, t.score, t.matched
    FROM stats s LEFT JOIN top t ON true
    ORDER BY t.score DESC, t.entry_id, t.entry_version_id`,
  );
  return { activeEntries: Number(rows[0]?.active_entries ?? 0), candidates: toCandidates(rows) };
}

export async function entityNeighbours(
  db: Kysely<Database>,
  query: EntityNeighbourQuery,
): Promise<ChannelCandidate[]> {
  const { scopeId, revision } = query;
  return toCandidates(
    await executePrepared(
      db,
      sql<ScoredRow>`
      WITH seeds AS MATERIALIZED (
        SELECT x.id::uuid AS entry_version_id
        FROM jsonb_array_elements_text(${JSON.stringify(query.seedVersionIds)}::jsonb) AS x(id)
      ), excluded AS MATERIALIZED (
        SELECT x.entity FROM jsonb_array_elements_text(${JSON.stringify(query.excludedEntities)}::jsonb) AS x(entity)
      ), links AS MATERIALIZED (
        SELECT DISTINCT e.entity FROM seeds k
        JOIN pc_entities e ON e.scope_id = ${scopeId} AND e.entry_version_id = k.entry_version_id
        WHERE e.scope_id = ${scopeId} AND NOT EXISTS (SELECT 1 FROM excluded x WHERE x.entity = e.entity)
      ), ${activeEntriesAt(scopeId, revision)}, matches AS MATERIALIZED (${holdersOf('links', scopeId, revision)}
      ), df AS MATERIALIZED (
        SELECT m.entity, count(*)::float8 AS df FROM matches m GROUP BY m.entity
        HAVING count(*) BETWEEN 2 AND ${query.maxDocumentFrequency}
      ), scored AS MATERIALIZED (
        SELECT m.entry_id, m.entry_version_id, ${SUMMED_IDF} AS score, count(*)::int AS matched
        FROM matches m JOIN df d USING (entity) CROSS JOIN stats s
        WHERE NOT EXISTS (SELECT 1 FROM seeds k WHERE k.entry_version_id = m.entry_version_id)
          AND ${keptBy(scopeId, query.filter, sql`m.entry_version_id`)}
        GROUP BY m.entry_id, m.entry_version_id
      )
      SELECT c.entry_id, c.entry_version_id, c.score, c.matched FROM scored c
      ORDER BY c.score DESC, c.entry_id, c.entry_version_id LIMIT ${query.limit}`,
    ),
  );
}
