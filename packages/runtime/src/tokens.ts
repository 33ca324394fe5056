import type {
  Embedder,
  Logger,
  MemoryService,
  MemoryStore,
  RetrievalPolicy,
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
  memoryService: Symbol('MemoryService') as InjectionToken<MemoryService>,
} as const;
