export {
  createEntityChannel,
  createGraphChannel,
  ENTITY_CHANNEL_DEFAULTS,
  ENTITY_QUERY_MAX,
  type EntityChannelOptions,
  GRAPH_CHANNEL_DEFAULTS,
  type GraphChannelOptions,
} from './channels/entity-channels.js';
export { resolveSearchChannels, storeChannels } from './channels/search-channels.js';
export { createLexicalChannel, createVectorChannel } from './channels/store-channels.js';
export {
  AUTHORITY_BOOST_MAX,
  AUTHORITY_TAG_WEIGHTS_MAX,
  AUTHORITY_WEIGHT_MAX,
  type AuthorityAdjustment,
  type AuthorityWeights,
  type AuthorityWeightsInput,
  authorityAdjustment,
  authorityWeightsSchema,
  hasAuthority,
} from './domain/authority.js';
export { contentHash } from './domain/content-hash.js';
export { assertEmbeddableTexts } from './domain/embeddable-texts.js';
export {
  ENTITY_EXTRACTOR_ID,
  ENTITY_MAX_PER_TEXT,
  extractEntities,
  normalizeEntity,
} from './domain/entities.js';
export {
  ENTRY_TAG_MAX_CHARS,
  ENTRY_TAGS_MAX,
} from './domain/entry-fields.js';
export {
  type EntryFilter,
  type EntryFilterInput,
  effectiveFilter,
  entryFilterSchema,
  FILTER_LIST_MAX,
  jsonContains,
  matchesFilter,
} from './domain/entry-filter.js';
export {
  IDEMPOTENCY_KEY_MAX_CHARS,
  IDEMPOTENCY_OWNER_MAX_CHARS,
  IDEMPOTENCY_RETENTION_DEFAULT_SECONDS,
  idempotencyKeyRule,
  requestDigest,
  storedIdempotencyKey,
} from './domain/idempotency.js';
export {
  type CurrentProjection,
  compareOrder,
  contextWindows,
  type EntryPosition,
  type EntryPositionInput,
  LEXICAL_PROJECTION_FAMILY,
  type LexicalProjectionPolicy,
  type LexicalProjectionState,
  lexicalProjectionPolicy,
  MAX_CONTEXT_DISTANCE,
  PLAIN_LEXICAL_PROJECTION,
  type PlannedProjection,
  type ProjectionNeighbour,
  planProjections,
  type SourceMember,
  sameContext,
} from './domain/lexical-projection.js';
export {
  ENTRY_TEXT_MAX_CHARS,
  type EntryState,
  type EntryTarget,
  type EntryVersion,
  type JsonValue,
  METADATA_MAX_BYTES,
  METADATA_MAX_DEPTH,
  REMEMBER_MAX_ENTRIES,
  type RememberEntryInput,
  type RememberRequest,
  type ReviseRequest,
  type SourceRef,
} from './domain/memory-entry.js';
export type { Citation, MemoryRef } from './domain/memory-ref.js';
export { parseInput } from './domain/parse-input.js';
export {
  PURGED_BY_MAX_CHARS,
  type PurgedChange,
  type PurgedEntryMarker,
  type PurgedVersion,
  type PurgeInfo,
  type PurgeRequest,
  type PurgeResult,
  type PurgeTombstone,
  purgedVersionAt,
} from './domain/purge.js';
export { LEXICAL_QUERY_MAX_TERMS, lexicalQueryOf, normalizeQuery } from './domain/query-normalization.js';
export {
  type GetEntryRequest,
  LIST_LIMIT_MAX,
  LIST_TEXT_MAX_CHARS,
  type ListChangesRequest,
  type ListEntriesRequest,
} from './domain/read-requests.js';
export {
  type DeleteScopeRequest,
  type DeleteScopeResult,
  deleteScopeRequestSchema,
  type ScopeTombstone,
} from './domain/scope-deletion.js';
export {
  type Channel,
  type ChannelCandidate,
  type ChannelName,
  type FusedCandidate,
  type FusedRanking,
  type LexicalAdmissionFallback,
  type LexicalCandidate,
  type LexicalMatchSources,
  type MemoryHit,
  type MultiScopeReport,
  type MultiScopeRerank,
  type ParsedSearchRequest,
  QUERY_MAX_CHARS,
  type RerankDegradationReason,
  type RerankTrace,
  type ScopeRead,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_SCOPES_MAX,
  type SearchFallback,
  type SearchMemoryRequest,
  type SearchMode,
  type SearchModeRequest,
  type SearchResult,
  searchRequestSchema,
  searchScopeIdsSchema,
} from './domain/search.js';
export { containsFolded, foldCase, storableText } from './domain/text-rules.js';
export { type Capability, CapabilityUnavailableError } from './errors/capability-unavailable-error.js';
export { EmbeddingFailedError } from './errors/embedding-failed-error.js';
export { EntryPurgedError } from './errors/entry-purged-error.js';
export { IdempotencyKeyReusedError } from './errors/idempotency-key-reused-error.js';
export { InvalidCitationError } from './errors/invalid-citation-error.js';
export { type MissingThing, NotFoundError } from './errors/not-found-error.js';
export {
  PowerContextError,
  type PowerContextErrorCode,
  type PowerContextErrorOptions,
} from './errors/powercontext-error.js';
export { RerankDeadlineError } from './errors/rerank-deadline-error.js';
export { RerankFailureError } from './errors/rerank-failure-error.js';
export { RerankOutOfBoundsError } from './errors/rerank-out-of-bounds-error.js';
export { RerankSaturatedError } from './errors/rerank-saturated-error.js';
export { RerankerDefectError } from './errors/reranker-defect-error.js';
export { RevisionConflictError } from './errors/revision-conflict-error.js';
export { RevisionNotVisibleError } from './errors/revision-not-visible-error.js';
export { ScopePurgedError } from './errors/scope-purged-error.js';
export { StoreIncompatibleError, StoreUnavailableError } from './errors/store-error.js';
export { type FieldIssue, ValidationError } from './errors/validation-error.js';
export type { Embedder, EmbeddingProfile, EmbedOptions } from './ports/embedder.port.js';
export { type LogFields, type Logger, noopLogger } from './ports/logger.port.js';
export type {
  MemoryRerankDecision,
  MemoryReranker,
  RerankOptions,
  RerankUsage,
} from './ports/memory-reranker.port.js';
export type {
  EmbeddingToStore,
  EntityNeighbourQuery,
  EntitySearchQuery,
  EntitySearchResult,
  ExportEntriesQuery,
  IdempotencyRecord,
  LexicalMatchQuery,
  LexicalMatchReport,
  LexicalSearchQuery,
  LexicalSearchResult,
  ListChangesQuery,
  ListEntriesQuery,
  ListOrder,
  MemoryStore,
  MemoryWriteTransaction,
  NewEntryVersion,
  PurgeEntryWrite,
  RevisionChange,
  RevisionOperation,
  ScopesReads,
  SearchHead,
  VectorIndexState,
  VectorSearchQuery,
  VersionOperation,
} from './ports/memory-store.port.js';
export type { Bm25Parameters, RetrievalPolicy } from './ports/retrieval-policy.port.js';
export type { ScopeAtRevision, ScopeVersionsRead } from './ports/scopes-reads.port.js';
export type {
  ChannelInput,
  ChannelQuery,
  ChannelResult,
  SearchChannel,
} from './ports/search-channel.port.js';
export type {
  DegradationReason,
  RerankEndEvent,
  RerankOutcome,
  RerankStartEvent,
  SearchEndEvent,
  SearchObserver,
} from './ports/search-observer.port.js';
export type { WriteAdvice, WriteAdvisor, WriteAdvisorMode } from './ports/write-advisor.port.js';
export { ConcurrencyGate } from './rerank/concurrency-gate.js';
export { assertRerankBounds, RERANK_MAX_CANDIDATES, RERANK_MAX_LIMIT } from './rerank/rerank-bounds.js';
export { type RerankFailurePolicy, RerankStage, type RerankStageOptions } from './rerank/rerank-stage.js';
export { coarseFallbackRanks, type RankSelection, selectRanks } from './rerank/select-ranks.js';
export { validateDecision } from './rerank/validate-decision.js';
export { CPU_SLICE_MS, CpuSlice, nextTurn } from './scheduling/cpu-turns.js';
export { SCOPE_FUSION_K } from './service/fuse-scopes.js';
export {
  importBatchKey,
  type Replayed,
  type WriteOptions,
  type WriteProgress,
} from './service/idempotency-ledger.js';
export {
  IMPORT_DEFAULT_BATCH_SIZE,
  type ImportOptions,
  type ImportProgress,
  type ImportRecord,
  type ImportSummary,
  InvalidImportLineError,
  importEntries,
} from './service/import-entries.js';
export { KeyedMutex } from './service/keyed-mutex.js';
export {
  type ChangesPage,
  type EntryPage,
  type EntryWriteResult,
  type EntryWriteStatus,
  MemoryService,
  type MemoryServiceOptions,
  type PurgedCitation,
  type RememberResult,
  type ResolvedCitation,
  type ValidCitation,
} from './service/memory-service.js';
export {
  EXPORT_PAGE_SIZE,
  type ExportRequest,
  exportedEntry,
  type MemoryExport,
} from './service/scope-lifecycle.js';
export { chooseMode, type SearchOptions } from './service/search-memory.js';
