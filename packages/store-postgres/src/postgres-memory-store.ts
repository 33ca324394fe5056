import {
  type ChannelCandidate,
  type EmbeddingProfile,
  type EmbeddingToStore,
  type EntityNeighbourQuery,
  type EntitySearchQuery,
  type EntitySearchResult,
  type ExportEntriesQuery,
  type IdempotencyRecord,
  type LexicalMatchQuery,
  type LexicalMatchReport,
  type LexicalProjectionPolicy,
  type LexicalProjectionState,
  type LexicalSearchQuery,
  type LexicalSearchResult,
  type ListChangesQuery,
  type ListEntriesQuery,
  type MemoryRef,
  type MemoryStore,
  type MemoryWriteTransaction,
  type PurgedChange,
  type PurgedEntryMarker,
  type PurgeTombstone,
  type RevisionChange,
  type ScopeAtRevision,
  ScopePurgedError,
  type ScopeTombstone,
  type ScopeVersionsRead,
  type SearchHead,
  type VectorIndexState,
  type VectorSearchQuery,
} from '@powercontext/memory-core';
import type { Kysely } from 'kysely';
import { ActiveEntryCounts } from './active-entries.js';
import type { Distribution } from './citus-distribution.js';
import type { Database } from './database.js';
import { readDeletedScope } from './deleted-scopes.js';
import { EmbeddingProfiles } from './embedding-profiles.js';
import { entityNeighbours, entitySearch } from './entity-channel.js';
import * as reads from './entry-reads.js';
import { FilteredVersions } from './filter-sql.js';
import type { IndexBuildSessions } from './hnsw-indexes.js';
import { findIdempotencyRecord } from './idempotency-records.js';
import { LexicalChannel } from './lexical-channel.js';
import { LexicalIndexCache, type LexicalIndexCacheOptions } from './lexical-index-cache.js';
import { lexicalProjectionState, rebuildLexicalProjection } from './lexical-projections.js';
import { listPurgedChanges, listPurgedEntries, readTombstone } from './purge-entry.js';
import { RevisionWrites } from './revision-writes.js';
import { BackgroundReads, type ScopeIndexCounts } from './scope-index-cache.js';
import { activeEntryCount, deleteScopeRows, exportEntries } from './scope-lifecycle.js';
import { searchHead, searchHeads, vectorIndexState } from './search-head.js';
import { guardStoreErrors } from './store-errors.js';
import { lexicalAnalysis } from './store-sql.js';
import { VectorChannel } from './vector-channel.js';
import { VectorIndexCache, type VectorIndexCacheOptions } from './vector-index-cache.js';

export interface PostgresMemoryStoreOptions {
  db: Kysely<Database>;
  /** PostgreSQL text search configuration for the lexical index, e.g. `english`. */
  textSearchConfig: string;
  /**
   * The tables are distributed by scope (Citus, RFC 0011): a search of several scopes then reads each
   * scope by statements of its own, each on the scope's shard, instead of one statement for all (which
   * saves round trips on one database, PGlite's above all). Default `none`.
   */
  distribution?: Distribution;
  /** Runs after the database is destroyed (e.g. releasing a lock file). */
  onClose?: () => Promise<void> | void;
  /**
   * Scopes with at most this many vectors of a profile are searched exactly; larger ones may use the
   * scope's own HNSW index (approximate). Default 20,000.
   */
  exactVectorScanLimit?: number;
  /** Sessions for HNSW index builds beside the writes (PostgreSQL); without, a write builds in its transaction. */
  indexBuilds?: IndexBuildSessions;
  /**
   * Keep the lexical indexes of scopes searched often in memory, keyed by (scope, revision), and answer
   * the lexical channel from them (LexicalIndexCache; RFC 0002, "The lexical index in memory"). The
   * answers are those of the lexical statement. `false` turns it off. Default: on, with its defaults.
   */
  lexicalIndexCache?: LexicalIndexCacheOptions | LexicalIndexCache | false;
  /**
   * Keep the sparse vectors of scopes searched often in memory, keyed by (scope, profile, revision), and
   * let them choose which vectors the database scores (VectorIndexCache; RFC 0002, "The vector index in
   * memory"). The answers are those of the exact scan. `false` turns it off. Default: on, with its
   * defaults.
   */
  vectorIndexCache?: VectorIndexCacheOptions | VectorIndexCache | false;
  /**
   * Whole reads of indexes in memory that may run at once, over both caches (default 2): each holds a
   * connection for as long as it runs, and the rest of the pool stays for searches.
   */
  backgroundReads?: number;
}

/** What one cache of indexes in memory has done (ScopeIndexCache's counts). */
export type IndexCacheCounts = ScopeIndexCounts;

export interface IndexCounts {
  /** The most whole reads that ran at once (at most `backgroundReads`). */
  backgroundReadsPeak: number;
  lexical?: IndexCacheCounts;
  vector?: IndexCacheCounts;
}

/** The longest a write waits for its scope's indexes in memory to follow it (PostgresMemoryStore.write). */
const FOLLOW_WAIT_MS = 250;

/**
 * The MemoryStore port on PostgreSQL-compatible databases (PostgreSQL through `pg`, or PGlite): a thin
 * composition of one part per concern, each in its own file: revision writes (`revision-writes.ts`,
 * with the lexical projections of `lexical-projections.ts`), entry reads (`entry-reads.ts`), the
 * lexical channel (`lexical-channel.ts`), the vector channel (`vector-channel.ts`), the entity and
 * graph channels' reads (`entity-channel.ts`, over the index `entity-index.ts` keeps) and the embedding
 * profiles (`embedding-profiles.ts`). Every method maps the database's errors to the store's
 * (`guardStoreErrors`).
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #db: Kysely<Database>;
  readonly #onClose: (() => Promise<void> | void) | undefined;
  readonly #profiles: EmbeddingProfiles;
  readonly #activeEntries = new ActiveEntryCounts();
  readonly #lexicalIndexes: LexicalIndexCache | undefined;
  readonly #vectorIndexes: VectorIndexCache | undefined;
  readonly #writes: RevisionWrites;
  readonly #lexical: LexicalChannel;
  readonly #vector: VectorChannel;
  readonly #backgroundReads: BackgroundReads;
  readonly #indexBuilds: IndexBuildSessions | undefined;
  #closed = false;
  /** A search of several scopes reads each scope by statements of its own (distributed tables). */
  readonly #perScope: boolean;

  constructor(options: PostgresMemoryStoreOptions) {
    const db = options.db;
    this.#db = db;
    this.#onClose = options.onClose;
    const cache = options.lexicalIndexCache;
    this.#lexicalIndexes =
      cache === false ? undefined : cache instanceof LexicalIndexCache ? cache : new LexicalIndexCache(cache);
    const vectors = options.vectorIndexCache;
    this.#vectorIndexes =
      vectors === false
        ? undefined
        : vectors instanceof VectorIndexCache
          ? vectors
          : new VectorIndexCache(vectors);
    const analyze = lexicalAnalysis(options.textSearchConfig);
    const closed = () => this.#closed;
    const reads = new BackgroundReads(options.backgroundReads);
    this.#backgroundReads = reads;
    this.#indexBuilds = options.indexBuilds;
    this.#profiles = new EmbeddingProfiles(db, options.exactVectorScanLimit ?? 20_000, options.indexBuilds);
    this.#writes = new RevisionWrites({
      db,
      analyze,
      profiles: this.#profiles,
      activeEntries: this.#activeEntries,
    });
    const filtered = new FilteredVersions(db);
    this.#perScope = options.distribution === 'citus';
    const perScope = this.#perScope;
    this.#lexical = new LexicalChannel({
      db,
      analyze,
      cache: this.#lexicalIndexes,
      reads,
      closed,
      filtered,
      perScope,
    });
    this.#vector = new VectorChannel({
      db,
      perScope,
      filtered,
      profiles: this.#profiles,
      activeEntries: this.#activeEntries,
      cache: this.#vectorIndexes,
      reads,
      closed,
    });
  }

  // Writes

  /**
   * One revision's write. Once it has committed new entry versions, the scope's indexes this process
   * holds in memory follow it (one delta read each, RFC 0002, "Indexes that follow writes") before the
   * write returns, so the searches after it are answered from memory at its revision.
   */
  async write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ): Promise<T> {
    let appended = false;
    const result = await guardStoreErrors(() =>
      this.#writes.write(scopeId, expectedRevision, (tx) =>
        work({
          ...tx,
          appendRevision: async (...args) => {
            const appendedRevision = await tx.appendRevision(...args);
            appended = true;
            return appendedRevision;
          },
        }),
      ),
    );
    if (appended && !this.#closed) {
      const revision = expectedRevision + 1;
      // The write has committed: an index that cannot follow is dropped by its catch-up, never reported.
      // The write waits FOLLOW_WAIT_MS at most; a slower catch-up goes on, and a search of the scope
      // waits for it (CatchUps).
      const followed = Promise.all([
        this.#lexical.follow(scopeId, revision),
        this.#vector.follow(scopeId, revision),
      ]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        followed.catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, FOLLOW_WAIT_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    return result;
  }

  idempotencyRecord(scopeId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    return guardStoreErrors(() => findIdempotencyRecord(this.#db, scopeId, key, now));
  }

  /**
   * Deletes the scope (RFC 0015) and drops whatever this process holds of it in memory: its lexical and
   * vector indexes and its counts, and its HNSW indexes in the database. Another process finds the
   * scope gone at its next `searchHead` and drops its own memory there.
   */
  async deleteScope(scopeId: string, deletedBy: string | null) {
    const result = await guardStoreErrors(() => deleteScopeRows(this.#db, scopeId, deletedBy));
    this.#forgetScope(scopeId);
    if (result?.status === 'deleted') await this.#profiles.dropScopeIndexes(scopeId).catch(() => {});
    return result;
  }

  deletedScope(scopeId: string): Promise<ScopeTombstone | undefined> {
    return guardStoreErrors(() => readDeletedScope(this.#db, scopeId));
  }

  exportEntries(query: ExportEntriesQuery) {
    return guardStoreErrors(() => exportEntries(this.#db, query));
  }

  activeEntryCount(scopeId: string, revision: number) {
    return guardStoreErrors(() => activeEntryCount(this.#db, scopeId, revision));
  }

  #forgetScope(scopeId: string) {
    this.#lexicalIndexes?.drop(scopeId);
    this.#vectorIndexes?.drop(scopeId);
    this.#activeEntries.forgetScope(scopeId);
  }

  rebuildLexicalProjection(scopeId: string, projection: LexicalProjectionPolicy): Promise<number> {
    return guardStoreErrors(() => rebuildLexicalProjection(this.#db, scopeId, projection));
  }

  // Reads

  head(scopeId: string): Promise<MemoryRef | undefined> {
    return guardStoreErrors(() => reads.readHead(this.#db, scopeId));
  }

  heads(scopeIds: readonly string[]): Promise<(MemoryRef | undefined)[]> {
    return guardStoreErrors(() => reads.readHeads(this.#db, scopeIds));
  }

  revisionExists(scopeId: string, revision: number): Promise<boolean> {
    return guardStoreErrors(() => reads.revisionExists(this.#db, scopeId, revision));
  }

  entryAt(scopeId: string, entryId: string, revision: number) {
    return guardStoreErrors(() => reads.entryAt(this.#db, scopeId, entryId, revision));
  }

  entryVersion(scopeId: string, entryVersionId: string) {
    return guardStoreErrors(() => reads.entryVersion(this.#db, scopeId, entryVersionId));
  }

  entryVersions(scopeId: string, entryVersionIds: readonly string[]) {
    return guardStoreErrors(() => reads.entryVersions(this.#db, scopeId, entryVersionIds, this.#perScope));
  }

  entryVersionsOfScopes(versionReads: readonly ScopeVersionsRead[]) {
    return guardStoreErrors(() => reads.entryVersionsOfScopes(this.#db, versionReads, this.#perScope));
  }

  listEntries(query: ListEntriesQuery) {
    return guardStoreErrors(() => reads.listEntries(this.#db, query));
  }

  countEntries(query: ListEntriesQuery): Promise<number> {
    return guardStoreErrors(() => reads.countEntries(this.#db, query));
  }

  listChanges(query: ListChangesQuery): Promise<RevisionChange[]> {
    return guardStoreErrors(() => reads.listChanges(this.#db, query));
  }

  purgedEntry(scopeId: string, entryId: string): Promise<PurgeTombstone | undefined> {
    return guardStoreErrors(() => readTombstone(this.#db, scopeId, entryId));
  }

  listPurgedEntries(query: ListEntriesQuery): Promise<PurgedEntryMarker[]> {
    return guardStoreErrors(() => listPurgedEntries(this.#db, query));
  }

  listPurgedChanges(query: ListChangesQuery): Promise<PurgedChange[]> {
    return guardStoreErrors(() => listPurgedChanges(this.#db, query));
  }

  listScopes() {
    return guardStoreErrors(() => reads.listScopes(this.#db));
  }

  // Search

  async searchHead(scopeId: string, profileId: string): Promise<SearchHead | undefined> {
    try {
      return await guardStoreErrors(() => searchHead(this.#db, this.#activeEntries, scopeId, profileId));
    } catch (error) {
      // Deleted by another process: what this one holds of the scope in memory goes too.
      if (error instanceof ScopePurgedError) this.#forgetScope(scopeId);
      throw error;
    }
  }

  /** `searchHead` of several scopes, in one statement (RFC 0014, "Several scopes"). */
  async searchHeads(scopeIds: readonly string[], profileId: string): Promise<(SearchHead | undefined)[]> {
    try {
      return await guardStoreErrors(() => searchHeads(this.#db, this.#activeEntries, scopeIds, profileId));
    } catch (error) {
      if (error instanceof ScopePurgedError) this.#forgetScope(error.tombstone.scopeId);
      throw error;
    }
  }

  lexicalProjectionState(
    scopeId: string,
    revision: number,
    policyId: string,
  ): Promise<LexicalProjectionState> {
    return guardStoreErrors(() => lexicalProjectionState(this.#db, scopeId, revision, policyId));
  }

  lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    return guardStoreErrors(() => this.#lexical.search(query));
  }

  lexicalSearchScopes(
    query: Omit<LexicalSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<LexicalSearchResult[]> {
    return guardStoreErrors(() => this.#lexical.searchScopes(query, scopes));
  }

  explainLexicalMatches(query: LexicalMatchQuery): Promise<LexicalMatchReport> {
    return guardStoreErrors(() => this.#lexical.explainMatches(query));
  }

  vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    return guardStoreErrors(() => this.#vector.search(query));
  }

  vectorSearchScopes(
    query: Omit<VectorSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<ChannelCandidate[][]> {
    return guardStoreErrors(() => this.#vector.searchScopes(query, scopes));
  }

  entitySearch(query: EntitySearchQuery): Promise<EntitySearchResult> {
    return guardStoreErrors(() => entitySearch(this.#db, query));
  }

  entityNeighbours(query: EntityNeighbourQuery): Promise<ChannelCandidate[]> {
    return guardStoreErrors(() => entityNeighbours(this.#db, query));
  }

  vectorIndexState(scopeId: string, revision: number, profileId: string): Promise<VectorIndexState> {
    return guardStoreErrors(() =>
      vectorIndexState(this.#db, this.#activeEntries, scopeId, revision, profileId),
    );
  }

  // Embedding profiles

  prepareEmbeddingProfile(profile: EmbeddingProfile) {
    return guardStoreErrors(() => this.#profiles.prepare(profile));
  }

  versionsMissingEmbedding(scopeId: string, profileId: string, limit: number) {
    return guardStoreErrors(() => this.#profiles.versionsMissingEmbedding(scopeId, profileId, limit));
  }

  putEmbeddings(scopeId: string, profileId: string, embeddings: readonly EmbeddingToStore[]) {
    return guardStoreErrors(() => this.#profiles.put(scopeId, profileId, embeddings));
  }

  /**
   * What the indexes in memory have done since the store opened: searches answered from memory,
   * whole reads, catch-ups by a revision's delta and their milliseconds (RFC 0002, "Indexes in memory").
   * A cache turned off has no entry.
   */
  indexCounts(): IndexCounts {
    return {
      backgroundReadsPeak: this.#backgroundReads.peak,
      ...(this.#lexicalIndexes ? { lexical: { ...this.#lexicalIndexes.counts } } : {}),
      ...(this.#vectorIndexes ? { vector: { ...this.#vectorIndexes.counts } } : {}),
    };
  }

  /** Resolves once no HNSW index build is in flight (tests, the benchmark). */
  indexBuildsSettled(): Promise<void> {
    return this.#profiles.buildsSettled();
  }

  async close() {
    this.#closed = true;
    await this.#indexBuilds?.close();
    this.#lexicalIndexes?.clear();
    this.#vectorIndexes?.clear();
    await this.#db.destroy();
    await this.#onClose?.();
  }
}

export { hnswVectorSearch } from './vector-statements.js';
