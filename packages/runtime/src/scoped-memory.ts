import type { AssemblyReport } from '@powercontext/context-assembly';
import type {
  ChangesPage,
  Citation,
  DeleteScopeRequest,
  DeleteScopeResult,
  EntryPage,
  EntryTarget,
  EntryVersion,
  EntryWriteResult,
  ExportRequest,
  GetEntryRequest,
  ImportOptions,
  ImportRecord,
  ImportSummary,
  ListChangesRequest,
  ListEntriesRequest,
  MemoryExport,
  MemoryRef,
  MemoryService,
  PurgeRequest,
  PurgeResult,
  RememberRequest,
  RememberResult,
  ResolvedCitation,
  ReviseRequest,
  SearchMemoryRequest,
  SearchOptions,
  SearchResult,
  WriteOptions,
} from '@powercontext/memory-core';
import {
  type AssembleSearchRequest,
  assembleSearchResult,
  type PrepareContextRequest,
  type PreparedContext,
  prepareContext,
} from './prepare-context.js';

/**
 * Options of a read (search, list, get, changes, context preparation). `minRevision`: the read must
 * see at least this revision of the scope (read-your-writes across read replicas, RFC 0011): a replica
 * that has not replayed it is waited for, then the configured fallback applies; a revision that no
 * database has yet is refused with RevisionNotVisibleError. `onServed` is told where the read ran.
 */
export interface ReadOptions {
  minRevision?: number;
  onServed?: (target: 'primary' | 'replica') => void;
  /**
   * Runs the read's own work, and only that: it is called once `minRevision` is visible (after any
   * wait for a replica), and not at all when the read is refused before. The server takes one of its
   * search lanes here, so a read waiting for its revision holds no lane (RFC 0011, issue 28).
   */
  gate?: ReadGate;
}

/** Wraps the work of a read once it may run (see `ReadOptions.gate`); must call `work` at most once. */
export type ReadGate = <T>(work: () => Promise<T>) => Promise<T>;

/** Runs one read with its options; the composition root decides where reads go. */
export type ReadRunner = <T>(
  scopeId: string,
  options: ReadOptions | undefined,
  work: () => Promise<T>,
) => Promise<T>;

/**
 * The Memory of one scope: the transport-neutral API that the server, CLI and evaluation use.
 *
 * Every write takes `WriteOptions`: `idempotencyKey` makes a repeat of the same request answer the
 * first result (`replayed: true`) without writing again, for the configured retention time
 * (POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS); the same key with another request
 * throws IdempotencyKeyReusedError. `signal` abandons a write only before its transaction begins, and
 * `onTransactionBegin` says when that moment has passed.
 */
export interface ScopedMemory {
  readonly scopeId: string;
  remember(request: RememberRequest, options?: WriteOptions): Promise<RememberResult>;
  revise(request: ReviseRequest, options?: WriteOptions): Promise<EntryWriteResult>;
  forget(request: EntryTarget, options?: WriteOptions): Promise<EntryWriteResult>;
  reactivate(request: EntryTarget, options?: WriteOptions): Promise<EntryWriteResult>;
  /**
   * Erases every version of the entry from the store (text, metadata, vectors, index), keeping the
   * revision chain with a tombstone; reads that name it afterwards answer `entry_purged`, citations
   * `status: 'purged'`. Cannot be undone, unlike `forget` (RFC 0002, "Purge").
   */
  purge(request: PurgeRequest, options?: WriteOptions): Promise<PurgeResult>;
  /**
   * Deletes the whole scope for good (RFC 0015): every entry, at every revision, from every table and
   * index; a tombstone stays, and every read and write of the scope afterwards throws ScopePurgedError
   * (`scope_purged`). Repeating it answers `unchanged`; a scope never written throws NotFoundError.
   */
  deleteScope(request?: DeleteScopeRequest): Promise<DeleteScopeResult>;
  /**
   * Opens an export of the active entries at `revision` (default the head), read page by page from the
   * primary at that revision: each entry as `exportedEntry` gives it, the shape `import` takes back.
   */
  openExport(request?: ExportRequest): Promise<MemoryExport>;
  list(request?: ListEntriesRequest, options?: ReadOptions): Promise<EntryPage>;
  get(request: GetEntryRequest, options?: ReadOptions): Promise<{ memory: MemoryRef; entry: EntryVersion }>;
  changes(request?: ListChangesRequest, options?: ReadOptions): Promise<ChangesPage>;
  /** Final hits; in process, `trace` holds the rerank diagnostics when a reranker ran. */
  search(request: SearchMemoryRequest, options?: SearchOptions & ReadOptions): Promise<SearchResult>;
  /** Search (with the configured reranker), then assemble a framed context under `contract` (RFC 0008). */
  prepareContext(
    request: PrepareContextRequest,
    options?: SearchOptions & ReadOptions,
  ): Promise<PreparedContext>;
  /** The assembly step of `prepareContext` alone, over the result of an earlier `search` with `request.query`. */
  assembleContext(request: AssembleSearchRequest, result: SearchResult): Promise<AssemblyReport>;
  resolveCitation(citation: Citation): Promise<ResolvedCitation>;
  /**
   * Streams entries in batches of `remember` (default 500, one revision each); every batch is checked
   * completely before any of it is written, and a re-run after an interruption stores nothing twice.
   * With `options.idempotencyKey`, batch N is a remember keyed `<key>#N`: a re-run with the same key,
   * records and batch size answers the stored batches with their first results.
   */
  import(
    records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
    options?: ImportOptions,
  ): Promise<ImportSummary>;
}

/** Reads run as they are: the store itself is the only database. */
const DIRECT: ReadRunner = (_scopeId, options, work) => (options?.gate ? options.gate(work) : work());

export function scopedMemory(
  service: MemoryService,
  scopeId: string,
  read: ReadRunner = DIRECT,
): ScopedMemory {
  const searchOptions = (options: (SearchOptions & ReadOptions) | undefined): SearchOptions | undefined => {
    if (!options) return undefined;
    const { minRevision: _minRevision, onServed: _onServed, gate: _gate, ...rest } = options;
    return rest;
  };
  return {
    scopeId,
    remember: (request, options) => service.remember(scopeId, request, options),
    revise: (request, options) => service.revise(scopeId, request, options),
    forget: (request, options) => service.forget(scopeId, request, options),
    reactivate: (request, options) => service.reactivate(scopeId, request, options),
    purge: (request, options) => service.purge(scopeId, request, options),
    deleteScope: (request) => service.deleteScope(scopeId, request),
    openExport: (request) => service.openExport(scopeId, request),
    list: (request, options) => read(scopeId, options, () => service.list(scopeId, request)),
    get: (request, options) => read(scopeId, options, () => service.get(scopeId, request)),
    changes: (request, options) => read(scopeId, options, () => service.changes(scopeId, request)),
    search: (request, options) =>
      read(scopeId, options, () => service.search(scopeId, request, searchOptions(options))),
    prepareContext: (request, options) =>
      read(scopeId, options, () => prepareContext(service, scopeId, request, searchOptions(options))),
    assembleContext: (request, result) => assembleSearchResult(service, scopeId, request, result),
    resolveCitation: (citation) => service.resolveCitation(scopeId, citation),
    import: (records, options) => service.import(scopeId, records, options),
  };
}
