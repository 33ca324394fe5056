import type { EntryFilter } from '../domain/entry-filter.js';
import type {
  EntryPosition,
  LexicalProjectionPolicy,
  LexicalProjectionState,
} from '../domain/lexical-projection.js';
import type { EntryState, EntryVersion, JsonValue, SourceRef } from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import type {
  PurgedChange,
  PurgedEntryMarker,
  PurgeTombstone,
  RevisionOperation,
  VersionOperation,
} from '../domain/purge.js';
import type { ScopeTombstone } from '../domain/scope-deletion.js';
import type { ChannelCandidate, LexicalCandidate, LexicalMatchReport } from '../domain/search.js';
import type { EmbeddingProfile } from './embedder.port.js';
import type { Bm25Parameters } from './retrieval-policy.port.js';
import type { ScopeAtRevision, ScopeVersionsRead } from './scopes-reads.port.js';

/** A new immutable entry version, fully formed by the core before it reaches the store. */
export interface NewEntryVersion {
  entryId: string;
  entryVersionId: string;
  version: number;
  previousVersionId: string | null;
  kind: string;
  text: string;
  contentHash: string;
  sources: SourceRef[];
  position: EntryPosition | null;
  metadata: Record<string, JsonValue>;
  tags: string[];
  pinned: boolean;
  occurredAt: string | null;
  state: EntryState;
  /** Vector for the search index; absent when embedding failed or the version is inactive. */
  embedding?: { profileId: string; vector: number[] };
}

export type { RevisionOperation, VersionOperation };

/** A purge as the core forms it before it reaches the store (RFC 0002, "Purge"). */
export interface PurgeEntryWrite {
  entryId: string;
  /** The tombstone's id: the new last link of the entry's version chain. */
  tombstoneVersionId: string;
  purgedBy: string | null;
}

/**
 * What a write with an idempotency key leaves behind, written in the write's own transaction: the
 * record exists exactly when the write committed. Kept per scope and key until `expiresAt`.
 */
export interface IdempotencyRecord {
  key: string;
  operation: RevisionOperation;
  /** Digest of the canonical request (see `requestDigest`); a retry must match it. */
  requestDigest: string;
  /** The write's result as JSON text, stored and returned verbatim. */
  result: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Work done inside one write transaction, seeing the scope exactly at `expectedRevision`. */
export interface MemoryWriteTransaction {
  /** Active entry versions with any of these content hashes. */
  findActiveByContentHash(hashes: readonly string[]): Promise<Map<string, EntryVersion>>;
  /** The entry's current (newest) version, active or not. */
  currentVersion(entryId: string): Promise<EntryVersion | undefined>;
  /**
   * Writes revision `expectedRevision + 1` with these versions and moves the head. At most once.
   * In the same transaction it re-projects, under `projection`, the lexical index entries whose
   * neighbour context the write changes (see `planProjections`).
   */
  appendRevision(
    operation: VersionOperation,
    versions: readonly NewEntryVersion[],
    projection: LexicalProjectionPolicy,
  ): Promise<{ memory: MemoryRef; versions: EntryVersion[] }>;
  /**
   * Records the write's idempotency key and result in this transaction, so the record commits (or
   * rolls back) with the write. Throws RevisionConflictError, and the write rolls back, when the scope
   * already holds a record of the key that has not expired at `record.createdAt` (a concurrent
   * duplicate committed first): the caller re-reads it and replays. An expired record of the key is
   * replaced. May prune other expired records (of any scope) on the way.
   */
  recordIdempotency(record: IdempotencyRecord): Promise<void>;
  /** The tombstone of a purged entry, read inside the transaction. */
  purgedEntry(entryId: string): Promise<PurgeTombstone | undefined>;
  /**
   * Writes revision `expectedRevision + 1` (operation `purge`) and erases every version of the entry
   * from every table and index of the store: text, kind, hash, sources, position, metadata, vectors,
   * lexical projections and postings, and the entry's words in its neighbours' projections at every
   * revision (rebuilt in place without it). The entry's source is re-projected at the new head under
   * `projection`, and the scope's search statistics at the head are counted again, so they equal
   * those of a scope that never held the entry. Keeps the revision rows and a tombstone: the ids,
   * numbers and revision ranges of the erased versions. It also deletes the scope's idempotency
   * records whose stored result names the entry id (a revise's result holds the text); a record the
   * same write passes to `recordIdempotency` afterwards is kept. Like `appendRevision`, at most once per
   * write and not together with it; the entry must have a current version.
   */
  purgeEntry(
    purge: PurgeEntryWrite,
    projection: LexicalProjectionPolicy,
  ): Promise<{ memory: MemoryRef; tombstone: PurgeTombstone }>;
}

/**
 * The order of a list (RFC 0014): `entry_id` (the default), `newest` (the revision that wrote the
 * current version, descending) or `oldest` (ascending); both of the latter break ties by entry id.
 */
export type ListOrder = 'entry_id' | 'newest' | 'oldest';

export interface ListEntriesQuery {
  scopeId: string;
  revision: number;
  state: EntryState | 'all';
  /** Exclusive lower bound on entry id (keyset pagination of the `entry_id` order). */
  afterEntryId?: string;
  limit: number;
  /** Only versions the filter keeps (RFC 0014); undefined keeps all. */
  filter?: EntryFilter;
  /**
   * Only versions whose text contains this, both folded to lower case one character at a time
   * (`foldCase`; PostgreSQL's `lower()`); undefined keeps all. A list's filter of its own.
   */
  text?: string;
  /** Default `entry_id`. */
  order?: ListOrder;
  /**
   * Keyset position of the `newest` and `oldest` orders: after the version written at `revision` of
   * entry `entryId`, in the list's order.
   */
  after?: { revision: number; entryId: string };
}

/**
 * One page of an export (RFC 0015, "Export"): the active versions live at the revision, ordered by
 * content hash, then entry version id. The order depends on kind and text alone, so a scope imported
 * from an export exports its lines in the same order.
 */
export interface ExportEntriesQuery {
  scopeId: string;
  revision: number;
  /** Keyset position: versions after (contentHash, entryVersionId). */
  after?: { contentHash: string; entryVersionId: string };
  limit: number;
}

export interface ListChangesQuery {
  scopeId: string;
  /** Exclusive. */
  fromRevision: number;
  /** Inclusive. */
  toRevision: number;
  /** Keyset position: versions after (revision, entryVersionId). */
  after?: { revision: number; entryVersionId: string };
  limit: number;
}

export interface RevisionChange {
  revision: number;
  operation: VersionOperation;
  version: EntryVersion;
  /** Never set: a purged change is a PurgedChange (`purged: true`). */
  purged?: false;
}

export interface LexicalSearchQuery {
  scopeId: string;
  revision: number;
  query: string;
  limit: number;
  bm25: Bm25Parameters;
  /**
   * Only versions the filter keeps are ranked (inside the channel, before its top `limit`); BM25's N,
   * average length and document frequencies stay those of the whole scope. Undefined keeps all.
   */
  filter?: EntryFilter;
}

export interface LexicalSearchResult {
  /** Distinct lexemes of the query after the store's analysis (stop words removed, stemmed). */
  queryTermCount: number;
  candidates: LexicalCandidate[];
}

export interface LexicalMatchQuery {
  scopeId: string;
  revision: number;
  /** The query exactly as `lexicalSearch` received it. */
  query: string;
  entryVersionIds: readonly string[];
}

export type { LexicalMatchReport };

export interface VectorSearchQuery {
  scopeId: string;
  revision: number;
  profileId: string;
  vector: readonly number[];
  limit: number;
  /** Only versions the filter keeps are ranked (before the top `limit`). Undefined keeps all. */
  filter?: EntryFilter;
}

/** The entity channel's read (RFC 0013): versions holding the query's entities at a revision. */
export interface EntitySearchQuery {
  scopeId: string;
  revision: number;
  /** The query's entities as `extractEntities` gives them (normalised, distinct). */
  entities: readonly string[];
  /**
   * When set, a query entity counts only when at most max(2, floor(maxDocumentShare * N)) active versions
   * at the revision hold it: a name most entries hold ranks nothing. Unset: every entity counts.
   */
  maxDocumentShare?: number;
  limit: number;
  /** Only versions the filter keeps are returned; the IDF's N and df stay those of the whole scope. */
  filter?: EntryFilter;
}

export interface EntitySearchResult {
  /** Active entries at the revision: the N of the entities' IDF. */
  activeEntries: number;
  /**
   * The active versions live at the revision that hold any of the entities that count, best first:
   * score = the sum, over those query entities a version holds (added in code-unit order of the entity), of
   * ln(1 + (N - df + 0.5) / (df + 0.5)), where df counts the active versions at the revision holding
   * the entity; ties by entry id, then entry version id. `matchedTerms` = the entities it holds.
   */
  candidates: ChannelCandidate[];
}

/** The graph channel's read (RFC 0013): versions linked to seed versions by shared rare entities. */
export interface EntityNeighbourQuery {
  scopeId: string;
  revision: number;
  /** The versions whose entities link (the entity channel's best); they are never returned. */
  seedVersionIds: readonly string[];
  /** Entities that do not link (the query's own: the entity channel finds their holders already). */
  excludedEntities: readonly string[];
  /** Only entities held by at most this many active versions at the revision link (rare ones). */
  maxDocumentFrequency: number;
  limit: number;
  /** Only versions the filter keeps are returned (the seeds and the link rule are not filtered). */
  filter?: EntryFilter;
}

export interface VectorIndexState {
  profileId: string;
  /** Active entries at the revision that have no vector of the profile. */
  missing: number;
  complete: boolean;
}

/** What a search reads before it fetches: the head, and the vector index state at it. */
export interface SearchHead {
  memory: MemoryRef;
  vectorIndex: VectorIndexState;
}

/**
 * Optional reads of several scopes at once, for a search of several scopes (RFC 0014, "Several
 * scopes"): each does in one read (one round trip on a database) what the one-scope method does per
 * scope, and must answer exactly what that method would answer for each scope, in the order given, and
 * fail as the first scope that fails would. A store without one gets the one-scope method per scope.
 * Scopes are never mixed: each scope is read at its own revision, and each answer is its scope's alone.
 */
export interface ScopesReads {
  /** `head` of each scope. */
  heads?(scopeIds: readonly string[]): Promise<(MemoryRef | undefined)[]>;
  /** `searchHead` of each scope. */
  searchHeads?(scopeIds: readonly string[], profileId: string): Promise<(SearchHead | undefined)[]>;
  /** `entryVersions` of each read, one map per read. */
  entryVersionsOfScopes?(reads: readonly ScopeVersionsRead[]): Promise<Map<string, EntryVersion>[]>;
  /** `lexicalSearch` of one query in each scope, at that scope's revision. */
  lexicalSearchScopes?(
    query: Omit<LexicalSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<LexicalSearchResult[]>;
  /** `vectorSearch` of one query in each scope, at that scope's revision. */
  vectorSearchScopes?(
    query: Omit<VectorSearchQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<ChannelCandidate[][]>;
}

export interface EmbeddingToStore {
  entryVersionId: string;
  vector: number[];
}

/**
 * Persistence port of the Memory model. Reads take an explicit revision so that one search sees one
 * consistent head; writes go through `write`, which applies compare-and-swap on the scope's head. A
 * store may also read several scopes at once for a search of several scopes (ScopesReads).
 */
export interface MemoryStore extends ScopesReads {
  /**
   * The scope's head revision, or undefined if it was never written. Throws ScopePurgedError for a
   * deleted scope, as `searchHead` and `write` do: no read or write of a deleted scope gets further.
   */
  head(scopeId: string): Promise<MemoryRef | undefined>;
  /**
   * Deletes the scope (RFC 0015): in one transaction, every row of it in every table and index (entry
   * versions, vectors, lexical projections and postings, entities, purge tombstones, idempotency
   * records, search statistics, revisions, the memory itself), leaving a ScopeTombstone. Writers of the
   * scope queue behind it and then answer ScopePurgedError. A deleted scope answers its tombstone
   * again (`unchanged`); a scope never written, undefined (nothing is written). The store drops any
   * index of the scope it holds in memory.
   */
  deleteScope(
    scopeId: string,
    deletedBy: string | null,
  ): Promise<{ tombstone: ScopeTombstone; status: 'deleted' | 'unchanged' } | undefined>;
  /** The tombstone of a deleted scope, or undefined. */
  deletedScope(scopeId: string): Promise<ScopeTombstone | undefined>;
  /** One page of the scope's export at a revision (see ExportEntriesQuery). */
  exportEntries(query: ExportEntriesQuery): Promise<EntryVersion[]>;
  /** How many active entries are live at the revision (what an export of it holds). */
  activeEntryCount(scopeId: string, revision: number): Promise<number>;
  /**
   * Runs `work` in one atomic transaction that sees the scope at `expectedRevision` (0 = never
   * written). Throws RevisionConflictError when the head is elsewhere; nothing is written then.
   */
  write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ): Promise<T>;
  revisionExists(scopeId: string, revision: number): Promise<boolean>;
  /** The scope's record of an idempotency key, unless there is none or it expired at `now`. */
  idempotencyRecord(scopeId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined>;
  /**
   * The entry's version that was current at `revision`. Reads never return an erased version: after a
   * purge this, `entryVersion`, `listEntries`, `listChanges` and both search channels answer at every
   * revision as if the entry's versions were not there, and `purgedEntry` says why.
   */
  entryAt(scopeId: string, entryId: string, revision: number): Promise<EntryVersion | undefined>;
  entryVersion(scopeId: string, entryVersionId: string): Promise<EntryVersion | undefined>;
  /**
   * The scope's entry versions with these ids, in one read, keyed by id; ids the scope does not hold are
   * absent. Versions are immutable, so no revision is needed: a search reads its kept candidates here.
   */
  entryVersions(scopeId: string, entryVersionIds: readonly string[]): Promise<Map<string, EntryVersion>>;
  listEntries(query: ListEntriesQuery): Promise<EntryVersion[]>;
  /** How many versions `listEntries` would return for the query without its keyset and limit. */
  countEntries(query: ListEntriesQuery): Promise<number>;
  listChanges(query: ListChangesQuery): Promise<RevisionChange[]>;
  /** The tombstone of a purged entry of the scope. */
  purgedEntry(scopeId: string, entryId: string): Promise<PurgeTombstone | undefined>;
  /**
   * Markers for the erased versions that `listEntries` would have returned for this query: current at
   * `revision`, of the state asked for, entry id after `afterEntryId`; by entry id, at most `limit`.
   */
  listPurgedEntries(query: ListEntriesQuery): Promise<PurgedEntryMarker[]>;
  /**
   * The changes of (fromRevision, toRevision] that a purge erased, and the purges themselves, in the
   * order and keyset of `listChanges` (revision, then entry version id), at most `limit`.
   */
  listPurgedChanges(query: ListChangesQuery): Promise<PurgedChange[]>;
  /** The lexical channel: BM25 over the projections visible at the revision, best first, identities only. */
  lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult>;
  /**
   * Explains lexical matches exactly (RFC 0007, "Explain"): for each given version, which query terms
   * its projection at `revision` matched, from the same analysis and postings `lexicalSearch` reads,
   * split into terms of the entry's own text and terms only its neighbour context brought.
   */
  explainLexicalMatches(query: LexicalMatchQuery): Promise<LexicalMatchReport>;
  /** The vector channel: cosine over the active versions live at the revision, best first, identities only. */
  vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]>;
  vectorIndexState(scopeId: string, revision: number, profileId: string): Promise<VectorIndexState>;
  /**
   * The entity channel (RFC 0013). A store keeps, for every active version it writes, the entities of
   * its text (`extractEntities`, at write time), visible at exactly the revisions the version is live
   * at (a superseded or forgotten version stops matching, older revisions still see it) and erased by
   * a purge at every revision. Identities and scores only.
   */
  entitySearch(query: EntitySearchQuery): Promise<EntitySearchResult>;
  /**
   * The graph channel (RFC 0013): the active versions live at the revision, other than the seeds, that
   * hold an entity some seed holds which is not excluded and which at most `maxDocumentFrequency` (and at
   * least 2) active versions hold; best first by the sum of those shared entities' IDF (as in
   * `entitySearch`, same order of addition), ties by entry id, then entry version id; `matchedTerms` = how
   * many shared entities.
   */
  entityNeighbours(query: EntityNeighbourQuery): Promise<ChannelCandidate[]>;
  /**
   * Optional: `head` and `vectorIndexState` at that head in one consistent read (one round trip on a
   * database). Must answer exactly what the two calls would; a store without it gets the two calls.
   */
  searchHead?(scopeId: string, profileId: string): Promise<SearchHead | undefined>;
  /** Active entry versions at the head without a vector of the profile, oldest first. */
  versionsMissingEmbedding(scopeId: string, profileId: string, limit: number): Promise<EntryVersion[]>;
  /** Adds vectors of the store's profile to existing versions (re-embedding); idempotent. */
  putEmbeddings(scopeId: string, profileId: string, embeddings: readonly EmbeddingToStore[]): Promise<void>;
  /** Records the profile and builds its vector index; idempotent, called once at start-up. */
  prepareEmbeddingProfile(profile: EmbeddingProfile): Promise<void>;
  /** How many active entries at `revision` are projected by a policy other than `policyId`. */
  lexicalProjectionState(
    scopeId: string,
    revision: number,
    policyId: string,
  ): Promise<LexicalProjectionState>;
  /**
   * Re-projects every active entry at the head whose projection differs from what `projection`
   * gives (another policy, or a context that no longer matches), without a new revision: the
   * projection is an index of the memory, not part of it. Returns the number re-projected.
   */
  rebuildLexicalProjection(scopeId: string, projection: LexicalProjectionPolicy): Promise<number>;
  /** Every scope that has a memory, for maintenance commands. */
  listScopes(): Promise<string[]>;
  close(): Promise<void>;
}
