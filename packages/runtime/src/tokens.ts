import type { DecisionModel } from '@powercontext/decision-model';
import type {
  Embedder,
  Logger,
  MemoryReranker,
  MemoryService,
  MemoryStore,
  RerankStage,
  RetrievalPolicy,
  SearchObserver,
} from '@powercontext/memory-core';
import type { InjectionToken } from 'tsyringe';
import type { RuntimeConfig } from './runtime-config.js';

/** Injection tokens of the composition root. Library packages never see the container. */
export const TOKENS = {
  config: Symbol('RuntimeConfig') as InjectionToken<RuntimeConfig>,
  logger: Symbol('Logger') as InjectionToken<Logger>,
  store: Symbol('MemoryStore') as InjectionToken<MemoryStore>,
  embedder: Symbol('Embedder') as InjectionToken<Embedder>,
  retrievalPolicy: Symbol('RetrievalPolicy') as InjectionToken<RetrievalPolicy>,
  /** The one decision backend every decision role shares, or null when none is configured. */
  decisionBackend: Symbol('DecisionBackend') as InjectionToken<DecisionModel | null>,
  /** The reranker in use, or null when reranking is off. */
  reranker: Symbol('MemoryReranker') as InjectionToken<MemoryReranker | null>,
  rerankStage: Symbol('RerankStage') as InjectionToken<RerankStage | null>,
  observer: Symbol('SearchObserver') as InjectionToken<SearchObserver>,
  memoryService: Symbol('MemoryService') as InjectionToken<MemoryService>,
} as const;
