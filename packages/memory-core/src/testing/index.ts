export { type AuthorityContractOptions, describeAuthorityContract } from './authority-contract.js';
export {
  type ConformanceCheck,
  type ConformanceOutcome,
  type ConformanceSuite,
  ConformanceViolation,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';
export {
  describeEmbedderConformance,
  type EmbedBackend,
  type EmbedderConformanceOptions,
  embedderConformanceSuite,
  ODD_EMBEDDABLE_TEXTS,
  runEmbedderConformance,
} from './embedder-conformance.js';
export { createFakeEmbedder, type FakeEmbedderOptions } from './fake-embedder.js';
export { InMemoryMemoryStore } from './in-memory-store.js';
export { createMinimalRrfPolicy } from './minimal-rrf-policy.js';
export {
  describeMultiScopeSearchContract,
  type MultiScopeSearchContractOptions,
} from './multi-scope-search-contract.js';
export { noSearchPolicy } from './no-search-policy.js';
export {
  conformancePool,
  describeRerankerConformance,
  type RerankBackend,
  type RerankerConformanceOptions,
  rerankerConformanceSuite,
  runRerankerConformance,
} from './reranker-conformance.js';
export {
  createBarrier,
  createScriptedReranker,
  type ScriptedReranker,
  type ScriptedRerankerOptions,
} from './scripted-reranker.js';
export {
  describeSearchChannelsContract,
  type SearchChannelsContractOptions,
} from './search-channels-contract.js';
export { describeSearchContract, type SearchContractOptions } from './search-contract.js';
export {
  createRecordingSearchObserver,
  describeSearchObserverConformance,
  type ObservedExport,
  runSearchObserverConformance,
  type SearchObserverConformanceOptions,
  type SearchObserverHarness,
  searchObserverConformanceSuite,
} from './search-observer-conformance.js';
export { foldAccents, foldableCharacters } from './simple-analyzer.js';
export { describeSteeringContract, type SteeringContractOptions } from './steering-contract.js';
export { describeMemoryStoreContract, type StoreContractOptions } from './store-contract.js';
export {
  describeTwoChannelParityContract,
  type TwoChannelParityOptions,
} from './two-channel-parity-contract.js';
export {
  type TwoChannelAnswer,
  type TwoChannelParameters,
  twoChannelCoarseSearch,
} from './two-channel-reference.js';
