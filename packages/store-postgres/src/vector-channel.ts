import type { ChannelCandidate, ScopeAtRevision, VectorSearchQuery } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { ActiveEntryCounts } from './active-entries.js';
import type { Database } from './database.js';
import type { EmbeddingProfiles } from './embedding-profiles.js';
import { liveAt } from './entry-version-row.js';
import type { FilteredVersions } from './filter-sql.js';
import { executePrepared } from './prepared.js';
import { type BackgroundReads, CatchUps } from './scope-index-cache.js';
import { type CandidateRow, purgeMarkOf } from './store-sql.js';
import {
  isSparseQuery,
  type ScopeVectorIndex,
  type VectorIndexCache,
  type VectorIndexRow,
  vectorCandidates,
  vectorIndexOf,
} from './vector-index-cache.js';
import { applyVectorDelta, type VectorDeltaRow } from './vector-index-delta.js';
import {
  exactVectorSearch,
  hnswVectorSearch,
  type ScoredRow,
  scoreHeldCandidates,
  scoreHeldCandidatesOfScopes,
  scoreVersions,
  vectorDelta,
} from './vector-statements.js';

export interface VectorChannelOptions {
  db: Kysely<Database>;
  /** Several scopes are read by statements of their own (tables distributed by scope, RFC 0011). */
  perScope?: boolean;
  profiles: EmbeddingProfiles;
  activeEntries: ActiveEntryCounts;
  /** The scopes' sparse vectors held in memory; undefined: the exact scan always answers. */
  cache: VectorIndexCache | undefined;
  /** The store's bound on whole reads running at once (shared with the lexical channel). */
  reads: BackgroundReads;
  /** Whether the store has closed: a background read then holds nothing. */
  closed: () => boolean;
  /** The versions a filter keeps, for the index in memory (shared with the lexical channel). */
  filtered: FilteredVersions;
}

/** How a query is answered (see `VectorChannel.#route`). */
type VectorRoute =
  | { kind: 'approximate' }
  | { kind: 'exact'; cache: VectorIndexCache | undefined; held: ScopeVectorIndex | undefined };

/**
 * The vector channel: pgvector's cosine over a scope's vectors of one profile, live and active at a
 * revision. Exact up to the exact-scan limit (with the sparse vectors held in memory choosing what the
 * database scores, RFC 0002, "The vector index in memory"), the scope's own HNSW index above it.
 */
export class VectorChannel {
  readonly #db: Kysely<Database>;
  readonly #perScope: boolean;
  readonly #profiles: EmbeddingProfiles;
  readonly #activeEntries: ActiveEntryCounts;
  readonly #vectorIndexes: VectorIndexCache | undefined;
  readonly #closed: () => boolean;
  readonly #reads: BackgroundReads;
  readonly #filtered: FilteredVersions;
  /** Catch-ups in flight, by (scope, profile): searches of the same pair wait for the one read. */
  readonly #catchUps = new CatchUps();

  constructor(options: VectorChannelOptions) {
    this.#db = options.db;
    this.#perScope = options.perScope ?? false;
    this.#profiles = options.profiles;
    this.#activeEntries = options.activeEntries;
    this.#vectorIndexes = options.cache;
    this.#closed = options.closed;
    this.#reads = options.reads;
    this.#filtered = options.filtered;
  }

  async search(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    const route = await this.#route(query);
    if (route.kind === 'approximate') return this.#approximateSearch(query);
    if (route.held) {
      const answer = await this.#vectorSearchInMemory(route.held, query);
      if (answer) return answer;
    }
    return this.#exactScan(query, route);
  }

  /**
   * `search` of one query in several scopes, each at its own revision: the scopes whose vector index
   * is held are scored together (`#vectorSearchesInMemory`: one statement for all of them), the others
   * as `search` answers them, scope by scope.
   */
  async searchScopes(
    query: Omit<VectorSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<ChannelCandidate[][]> {
    const queries = scopes.map(({ scopeId, revision }) => ({ ...query, scopeId, revision }));
    if (queries.length === 1) return [await this.search(queries[0]!)];
    const routes = await Promise.all(queries.map((scoped) => this.#route(scoped)));
    const held = queries.flatMap((scoped, at) => {
      const route = routes[at]!;
      return route.kind === 'exact' && route.held ? [{ at, index: route.held, query: scoped }] : [];
    });
    const inMemory =
      held.length === 1
        ? [await this.#vectorSearchInMemory(held[0]!.index, held[0]!.query)]
        : await this.#vectorSearchesInMemory(held);
    const answers = new Map(held.map(({ at }, index) => [at, inMemory[index]]));
    return Promise.all(
      queries.map((scoped, at) => {
        const route = routes[at]!;
        if (route.kind === 'approximate') return this.#approximateSearch(scoped);
        return answers.get(at) ?? this.#exactScan(scoped, route);
      }),
    );
  }

  /**
   * After this process's write made `revision`: the scope's vector indexes in memory (any profile),
   * if held at an earlier revision, move forward to it now (one delta read each).
   */
  async follow(scopeId: string, revision: number): Promise<void> {
    const cache = this.#vectorIndexes;
    if (!cache) return;
    await Promise.all(
      cache
        .heldOf(scopeId)
        .map(({ profileId, revision: at }) =>
          at < revision ? this.#heldAt(cache, scopeId, profileId, revision, false) : undefined,
        ),
    );
  }

  /**
   * The pair's index at the revision: held there, or held earlier and caught up (one read at a time).
   * A search's (`use`) counts as a use of it; a write's follow does not.
   */
  #heldAt(cache: VectorIndexCache, scopeId: string, profileId: string, revision: number, use = true) {
    return this.#catchUps.indexAt(
      `${scopeId}\u0000${profileId}`,
      revision,
      {
        lookup: () => cache.lookup(scopeId, profileId, revision),
        latest: () => cache.latest(scopeId, profileId),
        catchUp: (index) => this.#catchUp(cache, index, revision),
      },
      use,
    );
  }

  /**
   * How the channel answers a query: by the scope's own HNSW index (`approximate`: a scope over the
   * exact-scan limit that has one), or exactly, with the scope's vector index in memory when it is held
   * at the query's revision (caught up to it if need be).
   */
  async #route(query: VectorSearchQuery): Promise<VectorRoute> {
    const limit = this.#profiles.exactVectorScanLimit;
    // The scope's own HNSW index: known to this store, or built by another process since it opened.
    const indexed =
      this.#profiles.isIndexed(query.profileId, query.scopeId) ||
      ((this.#activeEntries.known(query.scopeId, query.revision) ?? 0) > limit &&
        (await this.#profiles.findIndex(query.profileId, query.scopeId)));
    const exact = !indexed || (await this.#liveEntries(query.scopeId, query.revision)) <= limit;
    if (!exact) return { kind: 'approximate' };
    const cache = query.limit > 0 && isSparseQuery(query.vector) ? this.#vectorIndexes : undefined;
    const { scopeId, profileId, revision } = query;
    const held = cache && (await this.#heldAt(cache, scopeId, profileId, revision));
    return { kind: 'exact', cache, held: held || undefined };
  }

  /** The scope's HNSW index answers (a scope over the exact-scan limit). */
  async #approximateSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    const limit = this.#profiles.exactVectorScanLimit;
    // A filter that keeps few versions is answered exactly over them (RFC 0014): an HNSW walk would
    // reject most of what it visits and may stop (`hnsw.max_scan_tuples`) before it has `limit`.
    const kept = query.filter && (await this.#filtered.kept(query.scopeId, query.revision, query.filter));
    if (kept && kept.size <= Math.max(limit, FILTERED_EXACT_SCAN_MAX)) {
      return toChannelCandidates(await executePrepared(this.#db, scoreVersions(query, [...kept])));
    }
    return toChannelCandidates((await hnswVectorSearch(query).execute(this.#db)).rows);
  }

  /** The exact scan answers; a scope searched often enough has its vector index read for next time. */
  async #exactScan(
    query: VectorSearchQuery,
    { cache, held }: Extract<VectorRoute, { kind: 'exact' }>,
  ): Promise<ChannelCandidate[]> {
    const rows = await executePrepared(this.#db, exactVectorSearch(query));
    const active = this.#activeEntries.known(query.scopeId, query.revision) ?? 0;
    // A query the index held at this revision left to the scan (dense, or its k-th cosine about 0) is
    // no reason to read the index again.
    if (!held && cache?.missed(query.scopeId, query.profileId, query.revision, active)) {
      if (this.#reads.tryStart()) {
        void this.#readVectorIndex(query.scopeId, query.profileId, query.revision).finally(() =>
          this.#reads.end(),
        );
      } else {
        cache.readFailed(query.scopeId, query.profileId);
      }
    }
    return toChannelCandidates(rows);
  }

  /**
   * The exact scan's answer with the vector index in memory choosing what is scored: the versions that
   * may be among the best (vectorCandidates) are scored by the database with the exact scan's expression
   * and order, in one statement that also reads the scope's purge mark. Undefined (the exact scan
   * answers) when too many may be, or when a purge happened since the index was read (it is dropped).
   */
  async #vectorSearchInMemory(
    index: ScopeVectorIndex,
    query: VectorSearchQuery,
  ): Promise<ChannelCandidate[] | undefined> {
    const candidates = await this.#candidatesOf(index, query);
    if (!candidates) return undefined;
    const rows = await executePrepared(this.#db, scoreHeldCandidates(query, candidates));
    return this.#scored(index, query, rows);
  }

  /**
   * `#vectorSearchInMemory` of several scopes (one query, each scope at its own revision, each with its
   * index held), in the order given: each index chooses its scope's candidates, and one statement scores
   * them all and orders them within their scope exactly as that statement does
   * (`scoreHeldCandidatesOfScopes`); where the tables are distributed by scope (RFC 0011), each scope's
   * own statement on its shard. Undefined for a scope the exact scan must answer.
   */
  async #vectorSearchesInMemory(
    held: readonly { index: ScopeVectorIndex; query: VectorSearchQuery }[],
  ): Promise<(ChannelCandidate[] | undefined)[]> {
    const candidates = await Promise.all(held.map(({ index, query }) => this.#candidatesOf(index, query)));
    const scored = held.flatMap((scope, at) => {
      const chosen = candidates[at];
      return chosen ? [{ ...scope, at, candidates: chosen }] : [];
    });
    const answers: (ChannelCandidate[] | undefined)[] = held.map(() => undefined);
    if (scored.length < 2 || this.#perScope) {
      await Promise.all(
        scored.map(async (scope) => {
          const rows = await executePrepared(this.#db, scoreHeldCandidates(scope.query, scope.candidates));
          answers[scope.at] = this.#scored(scope.index, scope.query, rows);
        }),
      );
      return answers;
    }
    const rows = await executePrepared(
      this.#db,
      scoreHeldCandidatesOfScopes(
        scored[0]!.query,
        scored.map(({ query, candidates }) => ({ scopeId: query.scopeId, candidates })),
      ),
    );
    scored.forEach((scope, at) => {
      const own = rows.filter((row) => row.at === at + 1);
      answers[scope.at] = this.#scored(scope.index, scope.query, own);
    });
    return answers;
  }

  /** The versions the index in memory hands the database to score, or undefined (the exact scan answers). */
  async #candidatesOf(index: ScopeVectorIndex, query: VectorSearchQuery): Promise<string[] | undefined> {
    const kept = query.filter && (await this.#filtered.kept(query.scopeId, query.revision, query.filter));
    // A write of this process may have moved the index past the query's revision meanwhile (in place).
    if (index.revision !== query.revision) return undefined;
    return vectorCandidates(
      index,
      query.vector,
      query.limit,
      maxVectorCandidates(query.limit),
      kept && ((entryVersionId) => kept.has(entryVersionId)),
    );
  }

  /** The scored candidates as the answer, or undefined when a purge happened since the index was read. */
  #scored(
    index: ScopeVectorIndex,
    query: VectorSearchQuery,
    rows: readonly ScoredRow[],
  ): ChannelCandidate[] | undefined {
    if ((rows[0]?.purged ?? null) !== index.purgeMark) {
      this.#vectorIndexes?.drop(query.scopeId);
      return undefined;
    }
    this.#vectorIndexes!.answered();
    return toChannelCandidates(
      rows.flatMap(({ entry_id, entry_version_id, cosine }) =>
        entry_id === null || entry_version_id === null ? [] : [{ entry_id, entry_version_id, cosine }],
      ),
    );
  }

  /** Moves the held index forward to `revision` by one delta read, or drops it (see applyVectorDelta). */
  async #catchUp(cache: VectorIndexCache, index: ScopeVectorIndex, revision: number): Promise<void> {
    const started = performance.now();
    const from = index.revision;
    let rows: VectorDeltaRow[];
    try {
      rows = await executePrepared(this.#db, vectorDelta(index.scopeId, index.profileId, from, revision));
    } catch {
      cache.dropIndex(index.scopeId, index.profileId);
      return;
    }
    if (this.#closed() || cache.latest(index.scopeId, index.profileId) !== index || index.revision !== from)
      return;
    const mark = rows.find((row) => row.kind === 'mark');
    const previousSize = index.size;
    if ((mark?.purged ?? null) !== index.purgeMark || !applyVectorDelta(index, revision, rows)) {
      cache.dropIndex(index.scopeId, index.profileId);
      return;
    }
    cache.resized(index, previousSize);
    cache.caughtUp(performance.now() - started);
  }

  /**
   * Reads the scope's vectors of the profile at the revision into memory, in one statement (one
   * snapshot): every version live and active at the revision with its vector as pgvector's binary form
   * (`sparsevec_send`: exact float4 values, decoded without parsing text), and the purge mark. Not held
   * when a version lacks a vector or the vectors are dense (vectorIndexOf). Runs beside the searches; a
   * failure only leaves the exact scan answering.
   */
  async #readVectorIndex(scopeId: string, profileId: string, revision: number): Promise<void> {
    const cache = this.#vectorIndexes!;
    try {
      const { rows } = await sql<VectorIndexRow>`
        WITH mark AS MATERIALIZED (
          SELECT ${purgeMarkOf(scopeId)} AS purged
        )
        SELECT v.entry_version_id, sparsevec_send(e.embedding) AS vector, m.purged
        FROM pc_entry_versions v
        LEFT JOIN pc_embeddings e
          ON e.scope_id = ${scopeId} AND e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId}
        CROSS JOIN mark m
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
        LIMIT ${maxVectorRows(cache.maxIndexBytes) + 1}`.execute(this.#db);
      if (this.#closed()) return;
      // More vectors than the index's share of the budget could hold even if each had one value.
      if (rows.length > maxVectorRows(cache.maxIndexBytes)) {
        cache.refused(scopeId, profileId);
        return;
      }
      const index = await vectorIndexOf(scopeId, profileId, revision, rows);
      if (this.#closed()) return;
      if (index) cache.hold(index);
      else cache.readFailed(scopeId, profileId);
    } catch {
      cache.readFailed(scopeId, profileId);
    }
  }

  /** Active entries at the revision: remembered from the statistics read, else counted up to the limit. */
  async #liveEntries(scopeId: string, revision: number): Promise<number> {
    const known = this.#activeEntries.known(scopeId, revision);
    if (known !== undefined) return known;
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM pc_entry_versions v WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
        LIMIT ${this.#profiles.exactVectorScanLimit + 1}
      ) AS bounded`.execute(this.#db);
    return rows[0]?.n ?? 0;
  }
}

/** The most versions a filter may keep for the HNSW path to score them exactly instead of walking. */
const FILTERED_EXACT_SCAN_MAX = 5_000;

/** The most vectors an index of `maxBytes` can hold (`vectorIndexBytes` of one value each, no dimensions). */
function maxVectorRows(maxBytes: number): number {
  return Math.floor(maxBytes / 88);
}

/** The most versions the vector index in memory may hand the database to score. */
function maxVectorCandidates(limit: number): number {
  return Math.max(4 * limit, limit + 64);
}

function toChannelCandidates(rows: readonly (CandidateRow & { cosine: number })[]): ChannelCandidate[] {
  return rows.map((row, index) => ({
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    rank: index + 1,
    score: Number(row.cosine),
  }));
}
