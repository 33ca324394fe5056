import type { AssemblyReport } from '@powercontext/context-assembly';
import type {
  ChangesPage,
  Citation,
  EntryPage,
  EntryTarget,
  EntryVersion,
  EntryWriteResult,
  GetEntryRequest,
  ImportOptions,
  ImportRecord,
  ImportSummary,
  ListChangesRequest,
  ListEntriesRequest,
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
} from '@powercontext/memory-core';
import {
  type AssembleSearchRequest,
  assembleSearchResult,
  type PrepareContextRequest,
  type PreparedContext,
  prepareContext,
} from './prepare-context.js';

/** The Memory of one scope: the transport-neutral API that the server, CLI and evaluation use. */
export interface ScopedMemory {
  readonly scopeId: string;
  remember(request: RememberRequest): Promise<RememberResult>;
  revise(request: ReviseRequest): Promise<EntryWriteResult>;
  forget(request: EntryTarget): Promise<EntryWriteResult>;
  reactivate(request: EntryTarget): Promise<EntryWriteResult>;
  /**
   * Erases every version of the entry from the store (text, metadata, vectors, index), keeping the
   * revision chain with a tombstone; reads that name it afterwards answer `entry_purged`, citations
   * `status: 'purged'`. Cannot be undone, unlike `forget` (RFC 0002, "Purge").
   */
  purge(request: PurgeRequest): Promise<PurgeResult>;
  list(request?: ListEntriesRequest): Promise<EntryPage>;
  get(request: GetEntryRequest): Promise<{ memory: MemoryRef; entry: EntryVersion }>;
  changes(request?: ListChangesRequest): Promise<ChangesPage>;
  /** Final hits; in process, `trace` holds the rerank diagnostics when a reranker ran. */
  search(request: SearchMemoryRequest, options?: SearchOptions): Promise<SearchResult>;
  /** Search (with the configured reranker), then assemble a framed context under `contract` (RFC 0008). */
  prepareContext(request: PrepareContextRequest, options?: SearchOptions): Promise<PreparedContext>;
  /** The assembly step of `prepareContext` alone, over the result of an earlier `search` with `request.query`. */
  assembleContext(request: AssembleSearchRequest, result: SearchResult): Promise<AssemblyReport>;
  resolveCitation(citation: Citation): Promise<ResolvedCitation>;
  /**
   * Streams entries in batches of `remember` (default 500, one revision each); every batch is checked
   * completely before any of it is written, and a re-run after an interruption stores nothing twice.
   */
  import(
    records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
    options?: ImportOptions,
  ): Promise<ImportSummary>;
}

export function scopedMemory(service: MemoryService, scopeId: string): ScopedMemory {
  return {
    scopeId,
    remember: (request) => service.remember(scopeId, request),
    revise: (request) => service.revise(scopeId, request),
    forget: (request) => service.forget(scopeId, request),
    reactivate: (request) => service.reactivate(scopeId, request),
    purge: (request) => service.purge(scopeId, request),
    list: (request) => service.list(scopeId, request),
    get: (request) => service.get(scopeId, request),
    changes: (request) => service.changes(scopeId, request),
    search: (request, options) => service.search(scopeId, request, options),
    prepareContext: (request, options) => prepareContext(service, scopeId, request, options),
    assembleContext: (request, result) => assembleSearchResult(service, scopeId, request, result),
    resolveCitation: (citation) => service.resolveCitation(scopeId, citation),
    import: (records, options) => service.import(scopeId, records, options),
  };
}
