import type {
  LexicalMatchQuery,
  LexicalMatchReport,
  LexicalMatchSources,
  LexicalSearchQuery,
  LexicalSearchResult,
  ScopeAtRevision,
} from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import { bm25Idf, bm25Statistics, projectionVisibleAt } from './bm25-sql.js';
import type { Database } from './database.js';
import { type FilteredVersions, keptBy } from './filter-sql.js';
import type { LexicalIndexCache } from './lexical-index-cache.js';
import { LexicalMemory } from './lexical-memory.js';
import { executePrepared } from './prepared.js';
import type { BackgroundReads } from './scope-index-cache.js';
import type { Analyze, CandidateRow } from './store-sql.js';

export interface LexicalChannelOptions {
  db: Kysely<Database>;
  analyze: Analyze;
  /** The scopes' lexical indexes held in memory; undefined: the statement always answers. */
  cache: LexicalIndexCache | undefined;
  /** The store's bound on whole reads running at once (shared with the vector channel). */
  reads: BackgroundReads;
  /** Whether the store has closed: a background read then holds nothing. */
  closed: () => boolean;
  /** The versions a filter keeps, for the index in memory (shared with the vector channel). */
  filtered: FilteredVersions;
  /** Several scopes are read by statements of their own (tables distributed by scope, RFC 0011). */
  perScope?: boolean;
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
  readonly #memory: LexicalMemory | undefined;

  constructor(options: LexicalChannelOptions) {
    this.#db = options.db;
    this.#analyzed = options.analyze;
    this.#memory =
      options.cache &&
      new LexicalMemory(
        options.db,
        options.analyze,
        options.cache,
        options.reads,
        options.closed,
        options.filtered,
        options.perScope ?? false,
      );
  }

  async search(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    return (await this.#memory?.answer(query)) ?? this.#lexicalSearchStatement(query);
  }

  /** After this process's write made `revision`: the scope's index in memory, if held, follows it. */
  async follow(scopeId: string, revision: number): Promise<void> {
    await this.#memory?.follow(scopeId, revision);
  }

  /**
   * `search` of one query in several scopes, each at its own revision: the scopes whose index is held
   * are answered from memory together (`LexicalMemory.answerScopes`: one short read for all of them),
   * the others by the statement, scope by scope.
   */
  async searchScopes(
    query: Omit<LexicalSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<LexicalSearchResult[]> {
    const answers = (await this.#memory?.answerScopes(query, scopes)) ?? [];
    return Promise.all(
      scopes.map(
        ({ scopeId, revision }, at) =>
          answers[at] ?? this.#lexicalSearchStatement({ ...query, scopeId, revision }),
      ),
    );
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
    // A filter (RFC 0014) keeps versions at the scoring step, before the top `limit`; N, avgdl and
    // each lexeme's df stay the scope's. scoreLexicalIndex computes the same in memory; a change here
    // must be made there too.
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
        FROM postings l CROSS JOIN LATERAL (
          SELECT p.entry_version_id, p.lexical_length FROM pc_lexical_projections p
          WHERE p.scope_id = ${query.scopeId} AND p.projection_id = l.projection_id
            AND ${projectionVisibleAt(query.revision)} LIMIT 1
        ) p
      ), scored AS MATERIALIZED (
        SELECT m.entry_version_id,
          sum(${bm25Idf(sql`s.n`, sql`m.df`)}
            * (m.tf * (${k1}::float8 + 1) / (m.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * m.len / greatest(s.avgdl, 1e-9))) + ${delta}::float8)
          ) AS score,
          count(*)::int AS matched_terms
        FROM matches m CROSS JOIN stats s
        WHERE ${keptBy(query.scopeId, query.filter, sql`m.entry_version_id`)}
        GROUP BY m.entry_version_id
      ), kth AS MATERIALIZED (
        SELECT s.score FROM scored s ORDER BY s.score DESC LIMIT 1 OFFSET ${Math.max(query.limit, 1) - 1}
      ), top AS MATERIALIZED (
        SELECT * FROM scored s WHERE s.score >= coalesce((SELECT k.score FROM kth k), '-Infinity'::float8)
      )
      SELECT v.entry_id, v.entry_version_id, top.score, top.matched_terms,
        cardinality((SELECT lexemes FROM q)) AS query_terms, (SELECT s.n * s.avgdl FROM stats s) AS total_length
      FROM top CROSS JOIN LATERAL (
        SELECT v.entry_id, v.entry_version_id FROM pc_entry_versions v
        WHERE v.scope_id = ${query.scopeId} AND v.entry_version_id = top.entry_version_id AND v.state = 'active' LIMIT 1
      ) v
      ORDER BY top.score DESC, v.entry_id, v.entry_version_id
      LIMIT ${query.limit}`,
    );
    const first = rows[0];
    if (first) this.#memory?.missed(query.scopeId, query.revision, Number(first.total_length));
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
        CROSS JOIN LATERAL (
          SELECT v.search_vector FROM pc_entry_versions v
          WHERE v.scope_id = ${query.scopeId} AND v.entry_version_id = a.entry_version_id LIMIT 1
        ) v
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
