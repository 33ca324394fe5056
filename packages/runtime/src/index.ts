export type {
  AssemblyContract,
  AssemblyContractInput,
  AssemblyReport,
  OmissionReason,
  OmittedCandidate,
  SelectedChunk,
} from '@powercontext/context-assembly';
// The errors a caller of the runtime catches, so `@powercontext/runtime` is the one import a user needs.
export { RerankEvidenceError } from '@powercontext/context-assembly';
export { InferenceError, type InferenceErrorCode } from '@powercontext/inference';
export type {
  ChannelCandidate,
  ChannelName,
  ChannelQuery,
  ChannelResult,
  SearchChannel,
} from '@powercontext/memory-core';
export {
  CapabilityUnavailableError,
  type DeleteScopeResult,
  EmbeddingFailedError,
  EntryPurgedError,
  EXPORT_PAGE_SIZE,
  exportedEntry,
  type FieldIssue,
  IdempotencyKeyReusedError,
  InvalidCitationError,
  InvalidImportLineError,
  type MemoryExport,
  NotFoundError,
  PowerContextError,
  type PowerContextErrorCode,
  RerankDeadlineError,
  RerankerDefectError,
  RerankFailureError,
  RerankOutOfBoundsError,
  RerankSaturatedError,
  RevisionConflictError,
  RevisionNotVisibleError,
  ScopePurgedError,
  type ScopeTombstone,
  StoreIncompatibleError,
  StoreUnavailableError,
  ValidationError,
  type WriteOptions,
  type WriteProgress,
} from '@powercontext/memory-core';
export { ConfigurationError } from './configuration-error.js';
export { CONFIGURATION_TABLE, type ConfigurationSetting } from './configuration-table.js';
export {
  type CreateRuntimeOptions,
  createRuntime,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeStatus,
} from './create-runtime.js';
export {
  type AssembleSearchRequest,
  NO_MODEL_ID,
  type PrepareContextRequest,
  type PreparedContext,
  UNDECLARED_MODEL_ID,
} from './prepare-context.js';
export {
  loadRuntimeConfig,
  type RuntimeConfig,
  SEARCH_CHANNEL_NAMES,
  type SearchChannelName,
} from './runtime-config.js';
export type { ReadGate, ReadOptions, ScopedMemory } from './scoped-memory.js';
export type { ScopesMemory, ScopesReadOptions } from './scopes-memory.js';
export { Secret } from './secret.js';
export { TOKENS } from './tokens.js';
export { MODEL_CALLABLE_TOOLS, type ModelCallableTool } from './tool-catalog.js';
