import {
  type LexicalProjectionPolicy,
  type LexicalProjectionState,
  type PlannedProjection,
  type ProjectionNeighbour,
  planProjections,
} from '@powercontext/memory-core';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './database.js';
import { lockHead } from './entry-reads.js';
import { liveAt, parseOrder as toEntryVersionOrder } from './entry-version-row.js';
import { projectionParts } from './projection-parts.js';
import { recountLexicalStatistics } from './search-statistics.js';
import { parseJsonValue } from './store-sql.js';

// The lexical projections (RFC 0007): each active version's own words plus its neighbours', written
// with their postings when a revision changes a source, rebuilt in place under a new policy.

/**
 * The projections to rebuild at the head (see planProjections): the active members of the touched
 * sources, and the given unpositioned versions, compared with their current projection. At the head
 * a live version is one not superseded, which the partial position index serves directly.
 */
export async function planLexicalProjections(
  db: Kysely<Database>,
  scopeId: string,
  projection: LexicalProjectionPolicy,
  touched: { sourceIds: readonly string[]; unpositioned: readonly string[] } | 'all',
): Promise<{ planned: PlannedProjection[]; replaced: string[] }> {
  type MemberRow = {
    entry_id: string;
    entry_version_id: string;
    position_source: string | null;
    position_order: number[] | string | null;
    policy_id: string | null;
    context: unknown;
  };
  // Each member comes with its current projection (if any) in the same read, found by its key: a
  // lateral probe, since a plain join on a scope that PGlite never analysed was planned as a walk of the
  // scope's projections per member (8,000 entries took 14 s instead of 0.2 s).
  const head = sql`v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'`;
  const members = sql`
    SELECT v.entry_id, v.entry_version_id, v.position_source, v.position_order, p.policy_id, p.context
    FROM pc_entry_versions v
    LEFT JOIN LATERAL (
      SELECT p.policy_id, p.context FROM pc_lexical_projections p
      WHERE p.scope_id = ${scopeId} AND p.entry_version_id = v.entry_version_id AND p.superseded_revision IS NULL
      LIMIT 1
    ) p ON true`;
  const { rows } =
    touched === 'all'
      ? await sql<MemberRow>`${members} WHERE ${head}`.execute(db)
      : touched.sourceIds.length === 0
        ? { rows: [] as MemberRow[] }
        : await sql<MemberRow>`${members}
            WHERE ${head} AND v.position_source IS NOT NULL
              AND v.position_source = ANY(${[...touched.sourceIds]}::text[])`.execute(db);
  const sources = new Map<string, { entryId: string; entryVersionId: string; order: number[] }[]>();
  // A write names its new unpositioned versions (they have no projection yet); a rebuild finds them
  // among the head's rows.
  const unpositioned = touched === 'all' ? [] : [...touched.unpositioned];
  const currentById = new Map<string, { policyId: string; context: ProjectionNeighbour[] }>();
  for (const row of rows) {
    if (row.policy_id !== null) {
      currentById.set(row.entry_version_id, {
        policyId: row.policy_id,
        context: parseJsonValue(row.context) as ProjectionNeighbour[],
      });
    }
    if (row.position_source === null || row.position_order === null) {
      unpositioned.push(row.entry_version_id);
      continue;
    }
    const list = sources.get(row.position_source) ?? [];
    list.push({
      entryId: row.entry_id,
      entryVersionId: row.entry_version_id,
      order: toEntryVersionOrder(row.position_order),
    });
    sources.set(row.position_source, list);
  }
  const planned = planProjections({
    policy: projection,
    sources,
    unpositioned,
    current: (id) => currentById.get(id),
  });
  return {
    planned,
    replaced: planned.flatMap((p) => (currentById.has(p.entryVersionId) ? [p.entryVersionId] : [])),
  };
}

/** Supersedes the current projections of `replaced` at `revision` and inserts the planned ones. */
export async function replaceProjections(
  trx: Transaction<Database>,
  scopeId: string,
  projection: LexicalProjectionPolicy,
  planned: readonly PlannedProjection[],
  replaced: readonly string[],
  revision: number,
) {
  if (planned.length === 0) return;
  // Only re-projected versions have a current projection to supersede; new versions have none.
  if (replaced.length > 0) {
    await trx
      .updateTable('pc_lexical_projections')
      .set({ superseded_revision: revision })
      .where('scope_id', '=', scopeId)
      .where('entry_version_id', 'in', replaced)
      .where('superseded_revision', 'is', null)
      .execute();
  }
  await insertProjections(
    trx,
    scopeId,
    projection.id,
    planned.map((p) => ({ ...p, revision })),
  );
}

/** How many active versions live at the revision lack a projection of the policy. */
export async function lexicalProjectionState(
  db: Kysely<Database>,
  scopeId: string,
  revision: number,
  policyId: string,
): Promise<LexicalProjectionState> {
  const { rows } = await sql<{ stale: number }>`
    SELECT count(*)::int AS stale FROM pc_entry_versions v
    WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
      AND NOT EXISTS (
        SELECT 1 FROM pc_lexical_projections p
        WHERE p.scope_id = ${scopeId} AND p.entry_version_id = v.entry_version_id AND p.policy_id = ${policyId}
          AND p.revision <= ${revision} AND (p.superseded_revision IS NULL OR p.superseded_revision > ${revision}))`.execute(
    db,
  );
  const stale = rows[0]?.stale ?? 0;
  return { policyId, stale, complete: stale === 0 };
}

/** Rebuilds every projection at the head under `projection` (RFC 0007, reindex); returns how many. */
export function rebuildLexicalProjection(
  db: Kysely<Database>,
  scopeId: string,
  projection: LexicalProjectionPolicy,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // The head row lock keeps writers out while the projections are swapped.
    const memory = await lockHead(trx, scopeId);
    if (!memory) return 0;
    const { planned } = await planLexicalProjections(trx, scopeId, projection, 'all');
    if (planned.length === 0) return 0;
    // Rebuilt in place: each new projection keeps the revision range of the one it replaces,
    // since the memory itself did not change.
    // Postings first: they name their projection without a foreign key (migration 0006), and are
    // found through the scope prefix of their primary key.
    await sql`
      DELETE FROM pc_lexical_postings l USING pc_lexical_projections p
      WHERE l.scope_id = ${scopeId} AND p.scope_id = ${scopeId} AND l.projection_id = p.projection_id
        AND p.entry_version_id = ANY(${planned.map((p) => p.entryVersionId)}::uuid[]) AND p.superseded_revision IS NULL`.execute(
      trx,
    );
    const { rows: replaced } = await sql<{ entry_version_id: string; revision: number }>`
      DELETE FROM pc_lexical_projections p
      WHERE p.scope_id = ${scopeId} AND p.entry_version_id = ANY(${planned.map((p) => p.entryVersionId)}::uuid[]) AND p.superseded_revision IS NULL
      RETURNING p.entry_version_id, p.revision`.execute(trx);
    const since = new Map(replaced.map((row) => [row.entry_version_id, row.revision]));
    await insertProjections(
      trx,
      scopeId,
      projection.id,
      planned.map((p) => ({ ...p, revision: since.get(p.entryVersionId) ?? memory.head_revision })),
    );
    await recountLexicalStatistics(trx, scopeId);
    return planned.length;
  });
}

/**
 * Inserts projections and their postings: an entry's own lexemes (weight 1) plus each neighbour's,
 * with term frequencies scaled by the neighbour's weight and summed per lexeme. One statement: the
 * (projection, source, weight) parts are listed once, each source version is read once by primary
 * key, and both the projection lengths and the postings are aggregated from that one pass (hash
 * aggregates, linear in the batch).
 */
export async function insertProjections(
  db: Kysely<Database>,
  scopeId: string,
  policyId: string,
  projections: readonly (PlannedProjection & { revision: number })[],
) {
  const { targets, sources, weights } = projectionParts(
    projections.map((p) => ({ ...p, target: p.entryVersionId })),
  );
  await sql`
    WITH parts AS MATERIALIZED (
      SELECT pt.target, pt.weight, v.lexical_length, v.search_vector
      FROM unnest(${targets}::uuid[], ${sources}::uuid[], ${weights}::float8[]) AS pt(target, source, weight)
      CROSS JOIN LATERAL (
        SELECT v.lexical_length, v.search_vector FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = pt.source LIMIT 1
      ) v
    ), sized AS (
      SELECT pt.target, sum(pt.weight * pt.lexical_length) AS len FROM parts pt GROUP BY pt.target
    ), inserted AS (
      INSERT INTO pc_lexical_projections (scope_id, entry_version_id, revision, policy_id, context, lexical_length)
      SELECT ${scopeId}, s.entry_version_id, s.revision, ${policyId}, s.context, coalesce(z.len, 0)
      FROM unnest(${projections.map((p) => p.entryVersionId)}::uuid[], ${projections.map((p) => p.revision)}::int[],
        ${projections.map((p) => JSON.stringify(p.context))}::jsonb[]) AS s(entry_version_id, revision, context)
      LEFT JOIN sized z ON z.target = s.entry_version_id
      RETURNING projection_id, entry_version_id
    )
    INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
    SELECT ${scopeId}, t.lexeme, i.projection_id, sum(pt.weight * coalesce(array_length(t.positions, 1), 1))
    FROM parts pt
    JOIN inserted i ON i.entry_version_id = pt.target
    CROSS JOIN LATERAL unnest(pt.search_vector) t
    GROUP BY i.projection_id, t.lexeme`.execute(db);
}
