import 'reflect-metadata';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import { createAiSdkEmbedder, createEmbeddingModel } from '@powercontext/inference-ai-sdk';
import {
  type Embedder,
  type EmbeddingProfile,
  type Logger,
  MemoryService,
  type MemoryStore,
  noopLogger,
  type RetrievalPolicy,
} from '@powercontext/memory-core';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { createPGliteMemoryStore, createPostgresMemoryStore } from '@powercontext/store-postgres';
import { instanceCachingFactory, container as rootContainer } from 'tsyringe';
import { loadRuntimeConfig, type RuntimeConfig } from './runtime-config.js';
import { type ScopedMemory, scopedMemory } from './scoped-memory.js';
import { TOKENS } from './tokens.js';

export interface CreateRuntimeOptions {
  /** Environment to read; defaults to `process.env`. Ignored when `config` is given. */
  env?: Record<string, string | undefined>;
  config?: RuntimeConfig;
  /** Application-provided adapters; each replaces the one the configuration would build. */
  store?: MemoryStore;
  embedder?: Embedder;
  retrievalPolicy?: RetrievalPolicy;
  logger?: Logger;
}

export interface RuntimeCapabilities {
  store: 'pglite' | 'postgres' | 'custom';
  embeddingProfile: EmbeddingProfile;
  retrievalPolicyId: string;
  searchModes: readonly ['auto', 'fts', 'vector', 'hybrid'];
}

export interface Runtime {
  readonly config: RuntimeConfig;
  readonly memory: {
    forScope(scopeId: string): ScopedMemory;
    /** Every scope that has a memory. */
    scopes(): Promise<string[]>;
    /** Embeds entries that lack a vector of the configured profile, so auto search can use hybrid again. */
    reembed(scopeId: string): Promise<number>;
  };
  capabilities(): RuntimeCapabilities;
  close(): Promise<void>;
}

/**
 * The composition root: parses configuration, opens the store, and wires adapters into the memory
 * service through a child tsyringe container (factories with explicit tokens, no decorators).
 */
export async function createRuntime(options: CreateRuntimeOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadRuntimeConfig(options.env ?? process.env);
  const container = rootContainer.createChildContainer();
  container.register(TOKENS.config, { useValue: config });
  container.register(TOKENS.logger, { useValue: options.logger ?? noopLogger });
  container.register(TOKENS.embedder, {
    useFactory: instanceCachingFactory((c) => options.embedder ?? buildEmbedder(c.resolve(TOKENS.config))),
  });
  container.register(TOKENS.retrievalPolicy, {
    useFactory: instanceCachingFactory(() => options.retrievalPolicy ?? createRrfRetrievalPolicy()),
  });

  // Resolve what can fail on configuration before opening the database.
  const embedder = container.resolve(TOKENS.embedder);
  const store = options.store ?? (await openStore(config));
  container.register(TOKENS.store, { useValue: store });
  try {
    await store.prepareEmbeddingProfile(embedder.profile);
  } catch (error) {
    await store.close();
    throw error;
  }
  container.register(TOKENS.memoryService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new MemoryService({
          store: c.resolve(TOKENS.store),
          embedder: c.resolve(TOKENS.embedder),
          retrievalPolicy: c.resolve(TOKENS.retrievalPolicy),
          logger: c.resolve(TOKENS.logger),
          maxWriteAttempts: config.writeMaxAttempts,
        }),
    ),
  });
  const service = container.resolve(TOKENS.memoryService);
  const storeKind = options.store ? 'custom' : config.store.kind;

  return {
    config,
    memory: {
      forScope: (scopeId) => scopedMemory(service, scopeId),
      scopes: () => store.listScopes(),
      reembed: (scopeId) => service.reembed(scopeId),
    },
    capabilities: () => ({
      store: storeKind,
      embeddingProfile: embedder.profile,
      retrievalPolicyId: service.retrievalPolicy.id,
      searchModes: ['auto', 'fts', 'vector', 'hybrid'] as const,
    }),
    close: async () => {
      await store.close();
      container.clearInstances();
    },
  };
}

function buildEmbedder(config: RuntimeConfig): Embedder {
  const embedding = config.embedding;
  if (embedding.kind === 'local') return createLocalEmbedder();
  const model = createEmbeddingModel(embedding.model, {
    ...(config.inference.baseUrl ? { baseUrl: config.inference.baseUrl } : {}),
    ...(config.inference.apiKey ? { apiKey: config.inference.apiKey.reveal() } : {}),
  });
  return createAiSdkEmbedder({
    model,
    profile: {
      id: `${embedding.model}@${embedding.dimension}`,
      dimension: embedding.dimension,
      minCosine: embedding.minCosine,
    },
    timeoutSeconds: embedding.timeoutSeconds,
    maxRequests: embedding.maxRequests,
  });
}

function openStore(config: RuntimeConfig): Promise<MemoryStore> {
  return config.store.kind === 'postgres'
    ? createPostgresMemoryStore({
        connectionString: config.store.connectionString.reveal(),
        textSearchConfig: config.textSearchConfig,
      })
    : createPGliteMemoryStore({ dataDir: config.store.dataDir, textSearchConfig: config.textSearchConfig });
}
