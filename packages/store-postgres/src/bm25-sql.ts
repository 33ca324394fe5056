import { type RawBuilder, sql } from 'kysely';

/**
 * BM25's idf of a lexeme found in `df` of `n` projections. The lexical statement and the read of the
 * in-memory index both compute it with this one expression, so the index's scores equal the
 * statement's to the bit (RFC 0002, "The lexical index in memory").
 */
export function bm25Idf(n: RawBuilder<unknown>, df: RawBuilder<unknown>) {
  return sql`ln(1 + (${n} - ${df} + 0.5) / (${df} + 0.5))`;
}

/**
 * The `kept` and `stats` steps of a statement that needs BM25's N and average length at a revision:
 * the scope's statistics row when it describes that revision, else counted from the projections
 * visible at it. The lexical statement and the in-memory index read them the same way.
 */
export function bm25Statistics(scopeId: string, revision: number) {
  return sql`kept AS MATERIALIZED (
    SELECT s.projections::float8 AS n, s.projection_length::float8 AS total FROM pc_scope_statistics s
    WHERE s.scope_id = ${scopeId} AND s.revision = ${revision}
  ), stats AS MATERIALIZED (
    SELECT k.n, CASE WHEN k.n > 0 THEN k.total / k.n ELSE 0 END AS avgdl FROM kept k
    UNION ALL
    SELECT count(*)::float8, coalesce(avg(p.lexical_length), 0)::float8
    FROM pc_lexical_projections p
    WHERE p.scope_id = ${scopeId} AND ${projectionVisibleAt(revision)}
    HAVING NOT EXISTS (SELECT 1 FROM kept)
  )`;
}

/** `p` (a lexical projection) is the one the index used at `revision`. */
export function projectionVisibleAt(revision: number) {
  return sql`p.revision <= ${revision} AND (p.superseded_revision IS NULL OR p.superseded_revision > ${revision})`;
}
