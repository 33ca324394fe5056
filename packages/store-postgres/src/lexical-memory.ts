import type { LexicalSearchQuery, LexicalSearchResult, ScopeAtRevision } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import { bm25Idf, bm25Statistics, projectionVisibleAt } from './bm25-sql.js';
import type { Database } from './database.js';
import type { FilteredVersions } from './filter-sql.js';
import {
  applyLexicalDelta,
  documentFrequency,
  IdfTable,
  type LexicalIndexRow,
  lexicalIndexBytes,
  lexicalIndexOf,
  type ScopeLexicalIndex,
  scoreLexicalIndex,
} from './lexical-index.js';
import type { LexicalIndexCache } from './lexical-index-cache.js';
import { executePrepared } from './prepared.js';
import { type BackgroundReads, CatchUps } from './scope-index-cache.js';
import { type Analyze, purgeMarkOf, textArrayLiteral } from './store-sql.js';

/**
 * The lexical channel's answers from scope indexes held in memory (LexicalIndexCache; RFC 0002,
 * "Indexes in memory"): whole reads of an index, the catch-up of a held index to a newer revision by
 * that revision's delta, and BM25 over the index with the statement's answers to the bit.
 */
export class LexicalMemory {
  readonly #db: Kysely<Database>;
  readonly #analyzed: Analyze;
  readonly #cache: LexicalIndexCache;
  readonly #closed: () => boolean;
  readonly #idfs = new IdfTable();
  /** Catch-ups in flight, by scope: searches of the same scope wait for the one read. */
  readonly #catchUps = new CatchUps();
  /** Scopes whose index was over its share of the budget, with their total length then (bounded). */
  readonly #tooLarge = new Map<string, number>();

  readonly #reads: BackgroundReads;
  readonly #filtered: FilteredVersions;
  readonly #perScope: boolean;

  constructor(
    db: Kysely<Database>,
    analyze: Analyze,
    cache: LexicalIndexCache,
    reads: BackgroundReads,
    closed: () => boolean,
    filtered: FilteredVersions,
    perScope: boolean,
  ) {
    this.#perScope = perScope;
    this.#filtered = filtered;
    this.#reads = reads;
    this.#db = db;
    this.#analyzed = analyze;
    this.#cache = cache;
    this.#closed = closed;
  }

  /** The answer from memory at exactly the query's revision, or undefined (the statement answers). */
  async answer(query: LexicalSearchQuery): Promise<LexicalSearchResult | undefined> {
    const index = await this.#indexAt(query.scopeId, query.revision);
    return index && this.#search(index, query);
  }

  /**
   * `answer` of one query in several scopes, each at its own revision, in order: one short read
   * analyses the query and reads every held scope's purge mark, then each is scored as `answer` scores
   * it. Where the tables are distributed by scope (RFC 0011) each held scope is answered by its own
   * short read instead, on its shard. Undefined for a scope whose index is not held (the statement
   * answers it).
   */
  async answerScopes(
    query: Omit<LexicalSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<(LexicalSearchResult | undefined)[]> {
    const indexes = await Promise.all(scopes.map((scope) => this.#indexAt(scope.scopeId, scope.revision)));
    const held = scopes.flatMap((scope, at) => {
      const index = indexes[at];
      return index ? [{ at, index, query: { ...query, ...scope } }] : [];
    });
    const answers: (LexicalSearchResult | undefined)[] = scopes.map(() => undefined);
    if (held.length < 2 || this.#perScope) {
      await Promise.all(
        held.map(async (scope) => {
          answers[scope.at] = await this.#search(scope.index, scope.query);
        }),
      );
      return answers;
    }
    const [probes, kept] = await Promise.all([
      executePrepared(
        this.#db,
        sql<{ lexemes: string[]; purged: number | null }>`
      WITH q AS MATERIALIZED (
        SELECT coalesce((SELECT array_agg(DISTINCT t.lexeme) FROM unnest(${this.#analyzed(query.query)}) t), '{}') AS lexemes
      )
      SELECT q.lexemes, ${purgeMarkOf(sql<string>`s.scope_id`)} AS purged
      FROM unnest(${textArrayLiteral(held.map((scope) => scope.query.scopeId))}::text[]) WITH ORDINALITY AS s(scope_id, at)
      CROSS JOIN q
      ORDER BY s.at`,
      ),
      Promise.all(held.map((scope) => this.#kept(scope.query))),
    ]);
    await Promise.all(
      held.map(async (scope, at) => {
        answers[scope.at] = await this.#score(scope.index, scope.query, probes[at], kept[at]);
      }),
    );
    return answers;
  }

  /**
   * After this process's write made `revision`: the scope's index, if held at an earlier revision, moves
   * forward to it now (one delta read), so the searches after the write find it there.
   */
  async follow(scopeId: string, revision: number): Promise<void> {
    const held = this.#cache.latest(scopeId);
    if (held && held.revision < revision) await this.#indexAt(scopeId, revision, false);
  }

  /** The scope's index at the revision; a search's (`use`) counts as a use of it, a write's follow not. */
  #indexAt(scopeId: string, revision: number, use = true): Promise<ScopeLexicalIndex | undefined> {
    return this.#catchUps.indexAt(
      scopeId,
      revision,
      {
        lookup: () => this.#cache.lookup(scopeId, revision),
        latest: () => this.#cache.latest(scopeId),
        catchUp: (held) => this.#catchUp(held, revision),
      },
      use,
    );
  }

  #kept(query: LexicalSearchQuery): Promise<ReadonlySet<string>> | undefined {
    return query.filter && this.#filtered.kept(query.scopeId, query.revision, query.filter);
  }

  /**
   * Moves the held index forward to `revision` by one read of what the revisions after its own added
   * and superseded. Dropped instead when a purge happened since (it rewrote the past), when too many of
   * its projections are superseded (the next whole read compacts it), or when the read fails.
   */
  async #catchUp(index: ScopeLexicalIndex, revision: number): Promise<void> {
    const started = performance.now();
    const from = index.revision;
    let rows: LexicalIndexRow[];
    try {
      rows = await executePrepared(this.#db, lexicalDelta(index.scopeId, from, revision));
    } catch {
      this.#cache.drop(index.scopeId);
      return;
    }
    if (this.#closed() || this.#cache.latest(index.scopeId) !== index || index.revision !== from) return;
    const stats = rows.find((row) => row.kind === 'stats');
    if (
      (stats?.purged ?? null) !== index.purgeMark ||
      index.superseded > Math.max(1_000, index.docCount / 2)
    ) {
      this.#cache.drop(index.scopeId);
      return;
    }
    const previousSize = index.size;
    applyLexicalDelta(index, revision, rows);
    this.#cache.resized(index, previousSize);
    this.#cache.caughtUp(performance.now() - started);
  }

  /**
   * BM25 over the index: one short read analyses the query (its distinct lexemes, sorted as the
   * statement sorts them) and reads the scope's purge mark; the idf of each (N, df) the table lacks is
   * asked of the database. Undefined if a purge happened since the index was read (it is dropped), or
   * if the index moved past the query's revision meanwhile.
   */
  async #search(
    index: ScopeLexicalIndex,
    query: LexicalSearchQuery,
  ): Promise<LexicalSearchResult | undefined> {
    const [[probe], kept] = await Promise.all([
      executePrepared(
        this.#db,
        sql<{ lexemes: string[]; purged: number | null }>`
      SELECT coalesce((SELECT array_agg(DISTINCT t.lexeme) FROM unnest(${this.#analyzed(query.query)}) t), '{}') AS lexemes,
        ${purgeMarkOf(query.scopeId)} AS purged`,
      ),
      this.#kept(query),
    ]);
    return this.#score(index, query, probe, kept);
  }

  /** BM25 over the index, given the query's lexemes and the scope's purge mark as just read (`#search`). */
  async #score(
    index: ScopeLexicalIndex,
    query: LexicalSearchQuery,
    probe: { lexemes: string[]; purged: number | null } | undefined,
    kept: ReadonlySet<string> | undefined,
  ): Promise<LexicalSearchResult | undefined> {
    if ((probe?.purged ?? null) !== index.purgeMark) {
      this.#cache.drop(query.scopeId);
      return undefined;
    }
    if (index.revision !== query.revision) return undefined;
    const lexemes = probe?.lexemes ?? [];
    const n = index.projections;
    const dfs = lexemes.map((lexeme) => documentFrequency(index, lexeme));
    const unknown = [...new Set(dfs.filter((df) => df > 0 && this.#idfs.get(n, df) === undefined))];
    if (unknown.length > 0) {
      await this.#learnIdfs(n, unknown);
      if (index.revision !== query.revision) return undefined;
    }
    const idfs = dfs.map((df) => (df > 0 ? this.#idfs.get(n, df) : undefined));
    if (idfs.some((idf, at) => idf === undefined && dfs[at]! > 0)) return undefined;
    this.#cache.answered();
    return {
      queryTermCount: lexemes.length,
      candidates: scoreLexicalIndex(
        index,
        lexemes,
        idfs as number[],
        query.limit,
        query.bm25,
        kept && ((entryVersionId) => kept.has(entryVersionId)),
      ),
    };
  }

  /** Asks the database for BM25's idf at N = `n` for each document frequency, with the statement's expression. */
  async #learnIdfs(n: number, dfs: readonly number[]): Promise<void> {
    const { rows } = await sql<{ df: number; idf: number }>`
      SELECT x.df, ${bm25Idf(sql`x.n`, sql`x.df`)} AS idf
      FROM unnest(${dfs.map(() => n)}::float8[], ${[...dfs]}::float8[]) AS x(n, df)`.execute(this.#db);
    for (const row of rows) this.#idfs.learn(n, Number(row.df), Number(row.idf));
  }

  /**
   * Counts a search the statement answered, and reads the scope's index when the cache's rule says so
   * (in the background).
   */
  missed(scopeId: string, revision: number, totalLength: number): void {
    // A scope found over its share is not read again until it is smaller (a purge) than it was then.
    const tooLarge = this.#tooLarge.get(scopeId);
    if (tooLarge !== undefined && totalLength >= tooLarge) return;
    this.#tooLarge.delete(scopeId);
    if (!this.#cache.missed(scopeId, revision, totalLength)) return;
    if (!this.#reads.tryStart()) {
      this.#cache.readFailed(scopeId);
      return;
    }
    void this.#read(scopeId, revision, totalLength).finally(() => this.#reads.end());
  }

  /**
   * Reads the scope's lexical index at the revision into memory, in one statement (one snapshot): the
   * BM25 figures as the lexical statement takes them and the purge mark, every projection visible at
   * the revision numbered in projection order, and per lexeme its idf (computed by the database, whose
   * `ln` the statement uses: JavaScript's Math.log may differ in the last bit) and the numbers and term
   * frequencies of the visible projections that hold it, as bytes (`int4send`, `float8send`): exact, and
   * decoded without parsing text (text arrays of half a million numbers held the event loop 150-200 ms).
   * Runs beside the searches; a failure, or an index over the cache's budget, only leaves the statement
   * answering.
   */
  async #read(scopeId: string, revision: number, totalLength: number): Promise<void> {
    try {
      // First a count of the scope's postings (its key's prefix; superseded ones included, so it can
      // only overstate): a scope whose postings alone exceed the share is refused without the read's
      // aggregation, which at 880,000 postings kept the database's cores busy for seconds.
      const [counted] = await executePrepared(
        this.#db,
        sql<{ postings: number }>`
        SELECT count(*)::float8 AS postings FROM pc_lexical_postings l WHERE l.scope_id = ${scopeId}`,
      );
      if (lexicalIndexBytes(0, 0, 0, Number(counted?.postings ?? 0)) > this.#cache.maxIndexBytes) {
        this.#refuse(scopeId, totalLength);
        return;
      }
      // Without table statistics (a new scope, PGlite) the planner would join the scope's postings to
      // its projections in a nested loop (minutes at 10,000 entries); hash joins and hash aggregates
      // are forced for this one read, with the memory they need.
      const rows = await this.#db.transaction().execute(async (trx) => {
        // On Citus the read runs on the scope's worker: the settings go there too (RFC 0011). Elsewhere
        // the name is a placeholder that nothing reads.
        await sql`SET LOCAL citus.propagate_set_commands = 'local'`.execute(trx);
        await sql`SET LOCAL enable_nestloop = off`.execute(trx);
        await sql`SET LOCAL enable_sort = off`.execute(trx);
        await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
        return (await lexicalIndexRead(scopeId, revision, this.#cache.maxIndexBytes).execute(trx)).rows;
      });
      if (this.#closed()) return;
      if (rows.some((row) => row.kind === 'stats' && row.ord === -1)) {
        this.#refuse(scopeId, totalLength);
        return;
      }
      const index = await lexicalIndexOf(scopeId, revision, rows, this.#idfs, this.#cache.maxIndexBytes);
      if (this.#closed()) return;
      if (index) this.#cache.hold(index);
      else this.#cache.readFailed(scopeId);
    } catch {
      this.#cache.readFailed(scopeId);
    }
  }

  /** The scope's index is over its share: not read again until the scope is smaller than now. */
  #refuse(scopeId: string, totalLength: number): void {
    if (this.#tooLarge.size >= 10_000) this.#tooLarge.clear();
    this.#tooLarge.set(scopeId, totalLength);
    this.#cache.refused(scopeId);
  }
}

/**
 * The whole read of a scope's lexical index at a revision (see `LexicalMemory.#read`). An index over
 * `maxBytes` (as `lexicalIndexBytes` estimates it) sends only its figures row, with `ord` -1: its
 * postings never reach this process.
 */
function lexicalIndexRead(scopeId: string, revision: number, maxBytes: number) {
  return sql<LexicalIndexRow>`
    WITH ${bm25Statistics(scopeId, revision)}, docs AS MATERIALIZED (
      SELECT p.projection_id, (row_number() OVER (ORDER BY p.projection_id) - 1)::int AS ord,
        p.entry_version_id, v.entry_id, v.state = 'active' AS active, p.lexical_length
      FROM pc_lexical_projections p
      JOIN pc_entry_versions v ON v.scope_id = p.scope_id AND v.entry_version_id = p.entry_version_id
      WHERE p.scope_id = ${scopeId} AND v.scope_id = ${scopeId} AND ${projectionVisibleAt(revision)}
    ), lists AS MATERIALIZED (
      SELECT l.lexeme, count(*)::float8 AS df, string_agg(int4send(d.ord), ''::bytea) AS ords,
        string_agg(float8send(l.tf), ''::bytea) AS tfs
      FROM pc_lexical_postings l JOIN docs d ON d.projection_id = l.projection_id
      WHERE l.scope_id = ${scopeId}
      GROUP BY l.lexeme
    ), fits AS MATERIALIZED (
      SELECT (SELECT count(*) FROM docs) * 200 + coalesce(sum(160 + 2 * length(ls.lexeme) + 12 * ls.df), 0)
        <= ${maxBytes}::float8 AS fits
      FROM lists ls
    )
    SELECT 'stats' AS kind, CASE WHEN f.fits THEN 0 ELSE -1 END AS ord, NULL::uuid AS entry_version_id,
      NULL::uuid AS entry_id, NULL::boolean AS active, s.n AS value, s.avgdl AS average_length,
      NULL::text AS lexeme, NULL::bytea AS ords, NULL::bytea AS tfs,
      ${purgeMarkOf(scopeId)} AS purged
    FROM stats s CROSS JOIN fits f
    UNION ALL
    SELECT 'doc', d.ord, d.entry_version_id, d.entry_id, d.active, d.lexical_length, NULL, NULL, NULL, NULL, NULL
    FROM docs d WHERE (SELECT fits FROM fits)
    UNION ALL
    SELECT 'lexeme', NULL, NULL, NULL, NULL, ${bm25Idf(sql`s.n`, sql`ls.df`)}, NULL, ls.lexeme, ls.ords, ls.tfs, NULL
    FROM lists ls CROSS JOIN stats s WHERE (SELECT fits FROM fits)`;
}

/**
 * The delta of a scope's lexical index from revision `from` to `to`, in one statement: the BM25
 * figures at `to` and the purge mark; the projections that became visible after `from` and are still
 * visible at `to`, numbered from 0; the versions that a version written after `from` superseded
 * (`gone`: their projections stop being visible); and, per lexeme, the new projections' postings.
 * Postings are keyed (scope, lexeme, projection), so each is found by its whole key: for each new
 * projection, the lexemes it can hold, those of the versions it is built from (its own and its
 * neighbours', `context`), never by a scan of the scope's postings. Both lookups are LATERAL with a
 * LIMIT 1 (each key is unique), which keeps the planner from turning them into scans of a table it has
 * no statistics for (PGlite is never analysed).
 */
function lexicalDelta(scopeId: string, from: number, to: number) {
  return sql<LexicalIndexRow>`
    WITH ${bm25Statistics(scopeId, to)}, added AS MATERIALIZED (
      SELECT p.projection_id, (row_number() OVER (ORDER BY p.projection_id) - 1)::int AS ord,
        p.entry_version_id, v.entry_id, v.state = 'active' AS active, p.lexical_length, p.context
      FROM pc_lexical_projections p
      CROSS JOIN LATERAL (
        SELECT v.entry_id, v.state FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = p.entry_version_id LIMIT 1
      ) v
      WHERE p.scope_id = ${scopeId} AND p.revision > ${from} AND ${projectionVisibleAt(to)}
    ), gone AS MATERIALIZED (
      SELECT v.previous_version_id AS entry_version_id FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.revision > ${from} AND v.revision <= ${to}
        AND v.previous_version_id IS NOT NULL
    ), parts AS MATERIALIZED (
      SELECT a.projection_id, a.entry_version_id AS source FROM added a
      UNION
      SELECT a.projection_id, (n.value ->> 'entryVersionId')::uuid
      FROM added a CROSS JOIN jsonb_array_elements(a.context) n
    ), pairs AS MATERIALIZED (
      SELECT DISTINCT pt.projection_id, t.lexeme
      FROM parts pt
      CROSS JOIN LATERAL (
        SELECT v.search_vector FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = pt.source LIMIT 1
      ) v
      CROSS JOIN LATERAL unnest(tsvector_to_array(v.search_vector)) t(lexeme)
    ), postings AS MATERIALIZED (
      SELECT pr.lexeme, pr.projection_id, l.tf
      FROM pairs pr
      CROSS JOIN LATERAL (
        SELECT l.tf FROM pc_lexical_postings l
        WHERE l.scope_id = ${scopeId} AND l.lexeme = pr.lexeme AND l.projection_id = pr.projection_id
        LIMIT 1
      ) l
    )
    SELECT 'stats' AS kind, NULL::int AS ord, NULL::uuid AS entry_version_id, NULL::uuid AS entry_id,
      NULL::boolean AS active, s.n AS value, s.avgdl AS average_length, NULL::text AS lexeme,
      NULL::bytea AS ords, NULL::bytea AS tfs,
      ${purgeMarkOf(scopeId)} AS purged
    FROM stats s
    UNION ALL
    SELECT 'doc', a.ord, a.entry_version_id, a.entry_id, a.active, a.lexical_length, NULL, NULL, NULL, NULL, NULL
    FROM added a
    UNION ALL
    SELECT 'gone', NULL, g.entry_version_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM gone g
    UNION ALL
    SELECT 'lexeme', NULL, NULL, NULL, NULL, NULL, NULL, l.lexeme,
      string_agg(int4send(a.ord), ''::bytea), string_agg(float8send(l.tf), ''::bytea), NULL
    FROM postings l JOIN added a ON a.projection_id = l.projection_id
    GROUP BY l.lexeme`;
}
