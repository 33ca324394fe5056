import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import type { Runtime } from '@powercontext/runtime';
import pg from 'pg';
import { SEARCH_LIMIT, WARMUP_QUERIES } from './case-spec.js';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf, round } from './measure.js';
import { type BenchSearchMode, type SearchFloor, searchFloorSchema } from './scale-report.js';
import type { CorpusQuery } from './synthetic-corpus.js';

/**
 * The search floor (issue 13): for each mode, the fastest hand-written SQL we know with the product's
 * semantics, on the product's own tables and indexes, run query by query interleaved with the product
 * so both see the same load, and checked to return the same entry versions in the same order.
 *
 * Semantics reproduced, with the runtime's retrieval settings (BM25 and RRF channel weights): the scope's
 * head revision; BM25 over the lexical projections visible at it, N and avgdl
 * of that revision; the lexical admission rule (a candidate matches max(2, ceil(n/4)) of n > 2 distinct
 * query terms, else 1; when neither channel admits a candidate, the lexical candidates the rule turned
 * away); exact cosine over the profile's vectors of live active versions, admitted at
 * the profile's minimum cosine; 40 candidates per channel (max(4 x 10, 32)); weighted RRF (k 60);
 * ties broken by entry id, then entry version id. One statement per search: no separate
 * head read, no index-completeness read (the floor knows the index is complete), no full rows.
 */
const FETCH = Math.max(4 * SEARCH_LIMIT, 32);
const RRF_K = 60;

interface FloorSettings {
  bm25: { k1: number; b: number; delta: number };
  weights: { fts: number; vector: number };
}

/** A number as a float8 SQL literal (settings only, never input). */
const f8 = (value: number) => {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  return `${value}::float8`;
};

const lexical = ({ bm25: { k1, b, delta } }: FloorSettings) => `
  q AS MATERIALIZED (
    SELECT coalesce(array_agg(DISTINCT t.lexeme), '{}') AS lexemes FROM unnest(to_tsvector('english'::regconfig, unaccent($2))) t
  ), stats AS MATERIALIZED (
    SELECT s.projections::float8 AS n, s.projection_length / greatest(s.projections, 1) AS avgdl
    FROM pc_scope_statistics s, head h WHERE s.scope_id = $1 AND s.revision = h.revision
  ), matches AS MATERIALIZED (
    SELECT l.lexeme, p.entry_version_id, l.tf, p.lexical_length AS len
    FROM pc_lexical_postings l
    JOIN pc_lexical_projections p ON p.scope_id = $1 AND p.projection_id = l.projection_id, head h
    WHERE l.scope_id = $1 AND l.lexeme = ANY ((SELECT lexemes FROM q)::text[])
      AND p.revision <= h.revision AND (p.superseded_revision IS NULL OR p.superseded_revision > h.revision)
    ORDER BY l.lexeme -- per-entry sums then add in lexeme order, as the product's do: the same float8 scores
  ), idf AS MATERIALIZED (
    SELECT m.lexeme, ln(1 + (s.n - count(*)::float8 + 0.5) / (count(*)::float8 + 0.5)) AS idf, s.avgdl
    FROM matches m, stats s GROUP BY m.lexeme, s.n, s.avgdl
  ), scored AS MATERIALIZED (
    SELECT m.entry_version_id,
      sum(i.idf * (m.tf * (${f8(k1)} + 1) / (m.tf + ${f8(k1)} * (1 - ${f8(b)} + ${f8(b)} * m.len / greatest(i.avgdl, 1e-9))) + ${f8(delta)})) AS score,
      count(*) AS matched
    FROM matches m JOIN idf i USING (lexeme) GROUP BY m.entry_version_id
  ), kth AS MATERIALIZED (
    SELECT s.score FROM scored s ORDER BY s.score DESC LIMIT 1 OFFSET ${FETCH - 1}
  ), fetched AS MATERIALIZED (
    SELECT s.entry_version_id, v.entry_id, s.score, s.matched,
      s.matched >= (SELECT CASE WHEN cardinality(q.lexemes) <= 2 THEN 1 ELSE greatest(2, ceil(cardinality(q.lexemes) / 4.0)) END FROM q) AS admitted
    FROM scored s JOIN pc_entry_versions v ON v.scope_id = $1 AND v.entry_version_id = s.entry_version_id
    WHERE s.score >= coalesce((SELECT k.score FROM kth k), '-Infinity'::float8)
    ORDER BY s.score DESC, v.entry_id, v.entry_version_id LIMIT ${FETCH}
  ), fts AS MATERIALIZED (
    SELECT c.entry_version_id, c.entry_id, row_number() OVER (ORDER BY c.score DESC, c.entry_id, c.entry_version_id) AS rank
    FROM fetched c WHERE c.admitted
  ), fts_fallback AS MATERIALIZED (
    -- The admission fallback (policy rrf.v3): when nothing at all was admitted, the fetched candidates
    -- the rule turned away are the answer, in the channel's order.
    SELECT c.entry_version_id, c.entry_id, row_number() OVER (ORDER BY c.score DESC, c.entry_id, c.entry_version_id) AS rank
    FROM fetched c WHERE NOT c.admitted
  )`;

// As in the product, ranks are positions among the admitted of the 40 fetched: admission after the limit.
const VECTOR = `
  ranked AS MATERIALIZED (
    SELECT r.entry_version_id, live.entry_id, r.cosine
    FROM (
      SELECT e.entry_version_id, coalesce(nullif(1 - (e.embedding <=> $3::sparsevec), 'NaN'::float8), 0) AS cosine
      FROM pc_embeddings e WHERE e.scope_id = $1 AND e.profile_id = $4 ORDER BY 2 DESC
    ) r
    CROSS JOIN LATERAL (
      SELECT v.entry_id FROM pc_entry_versions v, head h
      WHERE v.scope_id = $1 AND v.entry_version_id = r.entry_version_id AND v.revision <= h.revision
        AND (v.superseded_revision IS NULL OR v.superseded_revision > h.revision) AND v.state = 'active'
    ) live
    ORDER BY r.cosine DESC FETCH FIRST ${FETCH} ROWS WITH TIES
  ), vec AS MATERIALIZED (
    SELECT c.entry_version_id, c.entry_id, row_number() OVER (ORDER BY c.cosine DESC, c.entry_id, c.entry_version_id) AS rank
    FROM (
      SELECT * FROM ranked r ORDER BY r.cosine DESC, r.entry_id, r.entry_version_id LIMIT ${FETCH}
    ) c WHERE c.cosine >= $5
  )`;

// `$2::text IS NOT NULL` only types the query text parameter in the vector statement, which does not use it.
const HEAD = `head AS MATERIALIZED (SELECT m.head_revision AS revision FROM pc_memories m WHERE m.scope_id = $1 AND $2::text IS NOT NULL)`;

const floorSql = (settings: FloorSettings): Record<BenchSearchMode, string> => ({
  fts: `WITH ${HEAD}, ${lexical(settings)}
    SELECT f.entry_version_id
    FROM (SELECT * FROM fts UNION ALL SELECT * FROM fts_fallback WHERE NOT EXISTS (SELECT 1 FROM fts)) f
    ORDER BY f.rank LIMIT ${SEARCH_LIMIT}`,
  vector: `WITH ${HEAD}, ${VECTOR}
    SELECT v.entry_version_id FROM vec v ORDER BY v.rank LIMIT ${SEARCH_LIMIT}`,
  hybrid: `WITH ${HEAD}, ${lexical(settings)}, ${VECTOR}
    SELECT coalesce(f.entry_version_id, v.entry_version_id) AS entry_version_id
    FROM (
      SELECT * FROM fts
      UNION ALL
      SELECT * FROM fts_fallback WHERE NOT EXISTS (SELECT 1 FROM fts) AND NOT EXISTS (SELECT 1 FROM vec)
    ) f FULL JOIN vec v USING (entry_version_id)
    ORDER BY coalesce(${f8(settings.weights.fts)} / (${RRF_K} + f.rank), 0) + coalesce(${f8(settings.weights.vector)} / (${RRF_K} + v.rank), 0) DESC,
      coalesce(f.entry_id, v.entry_id), entry_version_id
    LIMIT ${SEARCH_LIMIT}`,
});

const scopeName = (scope: number) => `bench:scope-${scope}`;

function sparseLiteral(vector: readonly number[]): string {
  const values: string[] = [];
  vector.forEach((value, index) => {
    if (value !== 0) values.push(`${index + 1}:${value}`);
  });
  return `{${values.join(',')}}/${vector.length}`;
}

/**
 * Product and floor, query by query (alternating which goes first), for one mode. Every measured
 * query must give the same entry versions in the same order, else the run fails: a floor that answers
 * something else is no floor.
 */
export async function measureSearchFloor(
  runtime: Runtime,
  databaseUrl: string,
  queries: readonly CorpusQuery[],
  modes: readonly BenchSearchMode[],
  label: string,
): Promise<SearchFloor> {
  const embedder = createLocalEmbedder();
  const { profile } = embedder;
  const { bm25, channelWeights } = runtime.config.retrieval;
  const statements = floorSql({
    bm25: { k1: bm25.k1, b: bm25.b, delta: bm25.delta },
    weights: { fts: channelWeights.fts, vector: channelWeights.vector },
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const approximate = await approximateScopes(client);
    const result: Partial<SearchFloor> = {};
    for (const mode of modes) {
      // The floor's cosine is exact; a scope searched through its HNSW index is not, so the vector and
      // hybrid modes are compared on the other scopes' queries only.
      const compared =
        mode === 'fts' ? queries : queries.filter((query) => !approximate.has(scopeName(query.scope)));
      if (compared.length <= WARMUP_QUERIES) {
        console.log(
          `${label} ${mode} floor: not compared, ${compared.length} queries of scopes without an HNSW index (approximate, over the exact-scan limit) are no more than the warm-up`,
        );
        continue;
      }
      if (compared.length < queries.length) {
        console.log(
          `${label} ${mode} floor: compared on the ${compared.length} of ${queries.length} queries whose scope has no HNSW index`,
        );
      }
      const bar = createProgressBar(`${label} ${mode} product vs floor`, compared.length);
      bar.update(0);
      const product: number[] = [];
      const floor: number[] = [];
      for (const [index, query] of compared.entries()) {
        const scope = scopeName(query.scope);
        const runProduct = async () => {
          const started = performance.now();
          const found = await runtime.memory
            .forScope(scope)
            .search({ query: query.text, mode, limit: SEARCH_LIMIT });
          return {
            ms: performance.now() - started,
            ids: found.hits.map((hit) => hit.citation.entryVersionId),
          };
        };
        const runFloor = async () => {
          const started = performance.now();
          const values: unknown[] = [scope, query.text];
          if (mode !== 'fts') {
            const [vector] = await embedder.embed([query.text]);
            values.push(sparseLiteral(vector!), profile.id, profile.minCosine);
          }
          const { rows } = await client.query<{ entry_version_id: string }>(statements[mode], values);
          return { ms: performance.now() - started, ids: rows.map((row) => row.entry_version_id) };
        };
        const first = index % 2 === 0 ? await runProduct() : await runFloor();
        const second = index % 2 === 0 ? await runFloor() : await runProduct();
        const [p, f] = index % 2 === 0 ? [first, second] : [second, first];
        if (p.ids.join() !== f.ids.join()) {
          throw new Error(
            `the ${mode} floor answered "${query.text}" differently: product ${p.ids.join(' ')}, floor ${f.ids.join(' ')}`,
          );
        }
        if (index >= WARMUP_QUERIES) {
          product.push(p.ms);
          floor.push(f.ms);
        }
        bar.update(index + 1);
        await yieldToEventLoop();
      }
      const productLatency = latencyOf(product);
      const floorLatency = latencyOf(floor);
      result[mode] = {
        queries: product.length,
        product_p50_ms: productLatency.p50_ms,
        product_p95_ms: productLatency.p95_ms,
        floor_p50_ms: floorLatency.p50_ms,
        floor_p95_ms: floorLatency.p95_ms,
        ratio_p50: floorLatency.p50_ms > 0 ? round(productLatency.p50_ms / floorLatency.p50_ms, 2) : 0,
      };
    }
    return searchFloorSchema.parse(result);
  } finally {
    await client.end();
  }
}

/**
 * The scopes whose vectors have an HNSW index of their own (RFC 0002, "The HNSW index of a large
 * scope"): the store walks it, approximately, once the index is valid. Its predicate names the scope.
 */
export async function approximateScopes(client: pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{ scope_id: string | null }>(
    `SELECT replace(substring(pg_get_expr(i.indpred, i.indrelid) FROM $$\\(scope_id \\|\\| ''::text\\) = '(.*)'::text\\)$$), '''''', '''') AS scope_id
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname LIKE 'pc_embeddings_scope_hnsw_%' AND i.indisvalid`,
  );
  return new Set(rows.flatMap((row) => (row.scope_id === null ? [] : [row.scope_id])));
}
