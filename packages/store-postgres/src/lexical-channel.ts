import type {
  LexicalMatchQuery,
  LexicalMatchReport,
  LexicalMatchSources,
  LexicalSearchQuery,
  LexicalSearchResult,
} from '@powercontext/memory-core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database.js';
import {
  type LexicalIndexCache,
  type LexicalIndexRow,
  lexicalIndexOf,
  type ScopeLexicalIndex,
  scoreLexicalIndex,
} from './lexical-index-cache.js';
import { executePrepared } from './prepared.js';
import { type Analyze, type CandidateRow, purgeMarkOf } from './store-sql.js';

export interface LexicalChannelOptions {
  db: Kysely<Database>;
  analyze: Analyze;
  /** The scopes' lexical indexes held in memory; undefined: the statement always answers. */
  cache: LexicalIndexCache | undefined;
  /** Whether the store has closed: a background read then holds nothing. */
  closed: () => boolean;
}

/**
 * The lexical channel: BM25 over the projections live at a revision, answered by one statement or,
 * for a scope searched often at one revision, from its index held in memory with the statement's
 * answers to the bit (RFC 0002, "The lexical index in memory"); and the explain read of which query
 * terms matched a version's own words.
 */
export class LexicalChannel {
  readonly #db: Kysely<Database>;
  readonly #analyzed: Analyze;
  readonly #lexicalIndexes: LexicalIndexCache | undefined;
  readonly #closed: () => boolean;

  constructor(options: LexicalChannelOptions) {
    this.#db = options.db;
    this.#analyzed = options.analyze;
    this.#lexicalIndexes = options.cache;
    this.#closed = options.closed;
  }

  async search(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    const held = this.#lexicalIndexes?.lookup(query.scopeId, query.revision);
    if (held) {
      const answer = await this.#lexicalSearchInMemory(held, query);
      if (answer) return answer;
    }
    return this.#lexicalSearchStatement(query);
  }

  /**
   * The lexical channel over an index held in memory (LexicalIndexCache): one short read analyses the
   * query (its distinct lexemes, sorted as the statement sorts them) and reads the scope's purge mark;
   * if a purge happened since the index was read, the index is dropped and undefined returned.
   */
  async #lexicalSearchInMemory(
    index: ScopeLexicalIndex,
    query: LexicalSearchQuery,
  ): Promise<LexicalSearchResult | undefined> {
    const [probe] = await executePrepared(
      this.#db,
      sql<{ lexemes: string[]; purged: number | null }>`
      SELECT coalesce((SELECT array_agg(DISTINCT t.lexeme) FROM unnest(${this.#analyzed(query.query)}) t), '{}') AS lexemes,
        ${purgeMarkOf(query.scopeId)} AS purged`,
    );
    if ((probe?.purged ?? null) !== index.purgeMark) {
      this.#lexicalIndexes?.drop(query.scopeId);
      return undefined;
    }
    const lexemes = probe?.lexemes ?? [];
    this.#lexicalIndexes!.answered();
    return {
      queryTermCount: lexemes.length,
      candidates: scoreLexicalIndex(index, lexemes, query.limit, query.bm25),
    };
  }

  async #lexicalSearchStatement(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    const { k1, b, delta } = query.bm25;
    // BM25 over the postings of live entries: idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
    // tf part = tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)) + delta, summed over matched query lexemes.
    // One statement whose plan does not depend on table statistics (a new scope has none; PGlite is
    // never analysed): MATERIALIZED steps pin the order. N and avgdl come from the scope's statistics
    // row when it describes this revision (else they are counted); postings are read through their
    // (scope, lexeme) key and joined by primary key to their projection for visibility and length;
    // the top `limit` (and any rows tied with the last) are chosen on the score alone (a bounded
    // top-N sort finds the limit's score, then a filter keeps every row at or above it), and only those
    // are joined to their entry version rows for the tie-break: the answer is identities only, and the
    // search reads the content of the candidates fusion keeps (`entryVersions`). A visible
    // projection always belongs to a version that is live and active at the revision (RFC 0007).
    // scoreLexicalIndex computes the same in memory; a change here must be made there too.
    const rows = await executePrepared(
      this.#db,
      sql<CandidateRow & { score: number; matched_terms: number; query_terms: number; total_length: number }>`
      WITH q AS MATERIALIZED (
        SELECT coalesce(array_agg(DISTINCT t.lexeme), '{}') AS lexemes
        FROM unnest(${this.#analyzed(query.query)}) t
      ), ${bm25Statistics(query.scopeId, query.revision)}, postings AS MATERIALIZED (
        SELECT l.lexeme, l.projection_id, l.tf
        FROM pc_lexical_postings l
        WHERE l.scope_id = ${query.scopeId} AND l.lexeme = ANY ((SELECT lexemes FROM q)::text[])
      ), matches AS MATERIALIZED (
        SELECT l.lexeme, p.entry_version_id, l.tf, p.lexical_length AS len,
          count(*) OVER (PARTITION BY l.lexeme)::float8 AS df
        FROM postings l JOIN pc_lexical_projections p ON p.projection_id = l.projection_id
        WHERE ${projectionVisibleAt(query.revision)}
      ), scored AS MATERIALIZED (
        SELECT m.entry_version_id,
          sum(${bm25Idf(sql`s.n`, sql`m.df`)}
            * (m.tf * (${k1}::float8 + 1) / (m.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * m.len / greatest(s.avgdl, 1e-9))) + ${delta}::float8)
          ) AS score,
          count(*)::int AS matched_terms
        FROM matches m CROSS JOIN stats s
        GROUP BY m.entry_version_id
      ), kth AS MATERIALIZED (
        SELECT s.score FROM scored s ORDER BY s.score DESC LIMIT 1 OFFSET ${Math.max(query.limit, 1) - 1}
      ), top AS MATERIALIZED (
        SELECT * FROM scored s WHERE s.score >= coalesce((SELECT k.score FROM kth k), '-Infinity'::float8)
      )
      SELECT v.entry_id, v.entry_version_id, top.score, top.matched_terms,
        cardinality((SELECT lexemes FROM q)) AS query_terms, (SELECT s.n * s.avgdl FROM stats s) AS total_length
      FROM top JOIN pc_entry_versions v USING (entry_version_id)
      WHERE v.state = 'active'
      ORDER BY top.score DESC, v.entry_id, v.entry_version_id
      LIMIT ${query.limit}`,
    );
    const first = rows[0];
    if (first && this.#lexicalIndexes?.missed(query.scopeId, query.revision, Number(first.total_length))) {
      void this.#readLexicalIndex(query.scopeId, query.revision);
    }
    const queryTermCount =
      first?.query_terms ??
      (
        await sql<{ n: number }>`
          SELECT count(DISTINCT t.lexeme)::int AS n FROM unnest(${this.#analyzed(query.query)}) t`.execute(
          this.#db,
        )
      ).rows[0]!.n;
    return {
      queryTermCount,
      candidates: rows.map((row, index) => ({
        entryId: row.entry_id,
        entryVersionId: row.entry_version_id,
        rank: index + 1,
        score: Number(row.score),
        matchedTerms: row.matched_terms,
      })),
    };
  }

  /**
   * Reads the scope's lexical index at the revision into memory, in one statement (one snapshot): the
   * BM25 figures as the lexical statement takes them and the purge mark, every projection visible at
   * the revision numbered in projection order, and per lexeme its idf (computed by the database, whose
   * `ln` the statement uses: JavaScript's Math.log may differ in the last bit) and the numbers and term
   * frequencies of the visible projections that hold it, as bytes (`int4send`, `float8send`): exact, and
   * decoded without parsing text (text arrays of half a million numbers held the event loop 150-200 ms).
   * Runs beside the searches; a failure only leaves the statement answering.
   */
  async #readLexicalIndex(scopeId: string, revision: number): Promise<void> {
    const cache = this.#lexicalIndexes!;
    try {
      // Without table statistics (a new scope, PGlite) the planner would join the scope's postings to
      // its projections in a nested loop (minutes at 10,000 entries); hash joins and hash aggregates
      // are forced for this one read, with the memory they need.
      const rows = await this.#db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_nestloop = off`.execute(trx);
        await sql`SET LOCAL enable_sort = off`.execute(trx);
        await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
        return (
          await sql<LexicalIndexRow>`
        WITH ${bm25Statistics(scopeId, revision)}, docs AS MATERIALIZED (
          SELECT p.projection_id, (row_number() OVER (ORDER BY p.projection_id) - 1)::int AS ord,
            p.entry_version_id, v.entry_id, v.state = 'active' AS active, p.lexical_length
          FROM pc_lexical_projections p JOIN pc_entry_versions v ON v.entry_version_id = p.entry_version_id
          WHERE p.scope_id = ${scopeId} AND ${projectionVisibleAt(revision)}
        )
        SELECT 'stats' AS kind, NULL::int AS ord, NULL::uuid AS entry_version_id, NULL::uuid AS entry_id,
          NULL::boolean AS active, s.n AS value, s.avgdl AS average_length, NULL::text AS lexeme,
          NULL::bytea AS ords, NULL::bytea AS tfs,
          ${purgeMarkOf(scopeId)} AS purged
        FROM stats s
        UNION ALL
        SELECT 'doc', d.ord, d.entry_version_id, d.entry_id, d.active, d.lexical_length, NULL, NULL, NULL, NULL, NULL
        FROM docs d
        UNION ALL
        SELECT 'lexeme', NULL, NULL, NULL, NULL,
          ${bm25Idf(sql`s.n`, sql`count(*)::float8`)}, NULL, l.lexeme,
          string_agg(int4send(d.ord), ''::bytea), string_agg(float8send(l.tf), ''::bytea), NULL
        FROM pc_lexical_postings l JOIN docs d ON d.projection_id = l.projection_id CROSS JOIN stats s
        WHERE l.scope_id = ${scopeId}
        GROUP BY l.lexeme, s.n`.execute(trx)
        ).rows;
      });
      if (this.#closed()) return;
      const index = await lexicalIndexOf(scopeId, revision, rows);
      if (this.#closed()) return;
      cache.hold(index);
    } catch {
      cache.readFailed(scopeId);
    }
  }

  async explainMatches(query: LexicalMatchQuery): Promise<LexicalMatchReport> {
    // One read, three kinds of rows: the query's lexemes (no version), the asked versions whose
    // projection is visible at the revision (no lexeme), and that projection's postings of the query's
    // lexemes, each marked by whether the version's own tsvector holds it: the weight-1 part the
    // projection was built from (insertProjections). In query order: by a lexeme's first position.
    const { rows } = await sql<{ entry_version_id: string | null; lexeme: string | null; own: boolean }>`
      WITH q AS MATERIALIZED (
        SELECT t.lexeme, t.positions[1] AS first FROM unnest(${this.#analyzed(query.query)}) t
      ), asked AS MATERIALIZED (
        SELECT p.projection_id, p.entry_version_id FROM pc_lexical_projections p
        WHERE p.entry_version_id = ANY(${[...query.entryVersionIds]}::uuid[]) AND p.scope_id = ${query.scopeId}
          AND ${projectionVisibleAt(query.revision)}
      )
      SELECT found.entry_version_id, found.lexeme, found.own FROM (
        SELECT NULL::uuid AS entry_version_id, q.lexeme, q.first, false AS own FROM q
        UNION ALL
        SELECT a.entry_version_id, NULL, NULL, false FROM asked a
        UNION ALL
        SELECT a.entry_version_id, l.lexeme, q.first, l.lexeme = ANY(tsvector_to_array(v.search_vector))
        FROM asked a
        JOIN pc_lexical_postings l ON l.scope_id = ${query.scopeId} AND l.projection_id = a.projection_id
        JOIN q ON q.lexeme = l.lexeme
        JOIN pc_entry_versions v ON v.entry_version_id = a.entry_version_id
      ) found
      ORDER BY found.first NULLS FIRST, found.lexeme`.execute(this.#db);
    const queryTerms: string[] = [];
    const matches = new Map<string, LexicalMatchSources>();
    for (const row of rows) {
      if (row.entry_version_id === null) {
        queryTerms.push(row.lexeme!);
        continue;
      }
      let sources = matches.get(row.entry_version_id);
      if (!sources) {
        sources = { ownTerms: [], contextTerms: [] };
        matches.set(row.entry_version_id, sources);
      }
      if (row.lexeme !== null) (row.own ? sources.ownTerms : sources.contextTerms).push(row.lexeme);
    }
    return { queryTerms, matches };
  }
}

/**
 * BM25's idf of a lexeme found in `df` of `n` projections. The lexical statement and the read of the
 * in-memory index both compute it with this one expression, so the index's scores equal the
 * statement's to the bit (RFC 0002, "The lexical index in memory").
 */
function bm25Idf(n: RawBuilder<unknown>, df: RawBuilder<unknown>) {
  return sql`ln(1 + (${n} - ${df} + 0.5) / (${df} + 0.5))`;
}

/**
 * The `kept` and `stats` steps of a statement that needs BM25's N and average length at a revision:
 * the scope's statistics row when it describes that revision, else counted from the projections
 * visible at it. The lexical statement and the in-memory index read them the same way.
 */
function bm25Statistics(scopeId: string, revision: number) {
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
function projectionVisibleAt(revision: number) {
  return sql`p.revision <= ${revision} AND (p.superseded_revision IS NULL OR p.superseded_revision > ${revision})`;
}
