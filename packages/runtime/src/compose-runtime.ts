import 'reflect-metadata';
import type { DecisionModel } from '@powercontext/decision-model';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import {
  type AuthorityWeights,
  type Embedder,
  MemoryService,
  noopLogger,
  RerankStage,
  type RetrievalPolicy,
  type SearchChannel,
  type SearchObserver,
  ValidationError,
} from '@powercontext/memory-core';
import { createOpenTelemetrySearchObserver } from '@powercontext/observability-otel';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import type * as StorePostgres from '@powercontext/store-postgres';
import { instanceCachingFactory, container as rootContainer } from 'tsyringe';
import { ConfigurationError } from './configuration-error.js';
import { createDecisionWriteAdvisor } from './decision-write-advisor.js';
import type { ModelAdapters } from './model-adapters.js';
import { openStore } from './open-store.js';
import type { RuntimeConfig } from './runtime-config.js';
import type { CreateRuntimeOptions, Runtime, RuntimeStatus } from './runtime-types.js';
import { type ReadRunner, scopedMemory } from './scoped-memory.js';
import { type ScopesReadRunner, scopesMemory } from './scopes-memory.js';
import { TOKENS } from './tokens.js';

/** What `createRuntime` settled, or began loading, before the store's thread started. */
export interface RuntimeStart {
  config: RuntimeConfig;
  /** The `authority` option, checked. */
  authority: AuthorityWeights | undefined;
  /** The store adapters, loading. */
  stores: Promise<typeof StorePostgres>;
  /** The model adapters, loading when the configuration needs them (see model-adapters.ts). */
  models: Promise<ModelAdapters> | undefined;
  pgliteSharedBuffers: string;
  /**
   * Settles once `createRuntime` has begun opening the embedded data directory ahead (true) or found it
   * could not (false); the store's open then takes that open.
   */
  openedAhead?: Promise<boolean>;
}

/**
 * The composition root's wiring, which `createRuntime` loads once the embedded store's thread has
 * started: adapters registered in a child tsyringe container (factories with explicit tokens, no
 * decorators), resolved where they can fail on configuration, then the store opened and the runtime API
 * built over the memory service.
 */
export async function composeRuntime(options: CreateRuntimeOptions, start: RuntimeStart): Promise<Runtime> {
  const { config, authority, stores, pgliteSharedBuffers } = start;
  const models = start.models === undefined ? undefined : await start.models;
  const modelAdapters = (): ModelAdapters => {
    if (!models) throw new Error('internal: the model adapters were not loaded for this configuration');
    return models;
  };
  const container = rootContainer.createChildContainer();
  container.register(TOKENS.config, { useValue: config });
  container.register(TOKENS.logger, { useValue: options.logger ?? noopLogger });
  container.register(TOKENS.embedder, {
    useFactory: instanceCachingFactory(
      (c) => options.embedder ?? buildEmbedder(c.resolve(TOKENS.config), modelAdapters),
    ),
  });
  container.register(TOKENS.retrievalPolicy, {
    useFactory: instanceCachingFactory(
      (c) =>
        options.retrievalPolicy ??
        configuredPolicy(c.resolve(TOKENS.config), options.searchChannels, authority),
    ),
  });

  const observer = options.observer ?? createOpenTelemetrySearchObserver();
  container.register(TOKENS.observer, {
    useValue: options.additionalObserver ? bothObservers(observer, options.additionalObserver) : observer,
  });
  // One decision backend instance serves every decision role; each role gets its own handle.
  container.register(TOKENS.decisionBackend, {
    useFactory: instanceCachingFactory(
      (c) => options.decisionModel ?? buildDecisionBackend(c.resolve(TOKENS.config), modelAdapters),
    ),
  });
  container.register(TOKENS.reranker, {
    useFactory: instanceCachingFactory(
      (c) =>
        options.reranker ??
        (c.resolve(TOKENS.config).rerank.enabled
          ? modelAdapters().reranker(
              c.resolve(TOKENS.config),
              () => c.resolve(TOKENS.decisionBackend),
              c.resolve(TOKENS.logger),
              options.relevanceScorer,
              options.decisionModel !== undefined,
            )
          : null),
    ),
  });
  container.register(TOKENS.rerankStage, {
    useFactory: instanceCachingFactory((c) => {
      const reranker = c.resolve(TOKENS.reranker);
      return reranker ? new RerankStage({ reranker, ...c.resolve(TOKENS.config).rerank }) : null;
    }),
  });

  // Resolve what can fail on configuration before opening the database.
  const embedder = container.resolve(TOKENS.embedder);
  const rerankStage = container.resolve(TOKENS.rerankStage);
  const gateBackend =
    config.writeGate.mode === 'disabled'
      ? null
      : requireGateBackend(container.resolve(TOKENS.decisionBackend));
  await start.openedAhead;
  const opened = options.store
    ? { store: options.store }
    : await openStore(await stores, config, container.resolve(TOKENS.logger), pgliteSharedBuffers);
  const store = opened.store;
  const replicated = opened.replicated;
  const { assertRevisionVisible, PostgresMemoryStore, poolUsageOf, postgresRateLimitsOf, schemaState } =
    await stores;
  container.register(TOKENS.store, { useValue: store });
  try {
    await store.prepareEmbeddingProfile(embedder.profile);
  } catch (error) {
    await store.close();
    throw error;
  }
  const writeAdvisor =
    gateBackend && config.writeGate.mode !== 'disabled'
      ? createDecisionWriteAdvisor({
          mode: config.writeGate.mode,
          ...modelAdapters().writeGate(
            gateBackend,
            config.writeGate.timeoutMs,
            container.resolve(TOKENS.logger),
          ),
          // The gate compares against a coarse search: no reranker, no advisor of its own.
          search: (scopeId, request) =>
            new MemoryService({
              store,
              embedder,
              retrievalPolicy: container.resolve(TOKENS.retrievalPolicy),
              ...(options.searchChannels ? { searchChannels: options.searchChannels } : {}),
            }).search(scopeId, request),
        })
      : undefined;
  container.register(TOKENS.memoryService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new MemoryService({
          store: c.resolve(TOKENS.store),
          embedder: c.resolve(TOKENS.embedder),
          retrievalPolicy: c.resolve(TOKENS.retrievalPolicy),
          ...(options.searchChannels ? { searchChannels: options.searchChannels } : {}),
          logger: c.resolve(TOKENS.logger),
          maxWriteAttempts: config.writeMaxAttempts,
          idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
          ...(rerankStage ? { rerankStage } : {}),
          multiScopeRerank: options.multiScopeRerank ?? config.rerank.multiScope,
          observer: c.resolve(TOKENS.observer),
          ...(writeAdvisor ? { writeAdvisor } : {}),
        }),
    ),
  });
  const service = container.resolve(TOKENS.memoryService);
  if (config.rerank.policy !== undefined && !config.rerank.enabled) {
    container.resolve(TOKENS.logger).warn('runtime.config.rerank_policy_ignored', {
      setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY',
      reason: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED is false',
      injectedReranker: options.reranker !== undefined,
    });
  }
  const storeKind = options.store ? 'custom' : config.store.kind;

  const readScopes: ScopesReadRunner = async (targets, readOptions, work) => {
    // The gate (the server's search lane) is taken only once every revision is visible: a wait for a
    // replica to replay them holds nothing but the caller's own in-flight slot.
    const gate = readOptions?.gate;
    const gated = gate ? () => gate(work) : work;
    if (replicated) {
      const outcome = await replicated.readScopes(targets, gated);
      readOptions?.onServed?.(outcome.servedBy.kind);
      options.onRead?.(outcome.servedBy.kind);
      return outcome.value;
    }
    for (const { scopeId, minRevision } of targets) {
      if (minRevision !== undefined) await assertRevisionVisible(store, scopeId, minRevision);
    }
    readOptions?.onServed?.('primary');
    options.onRead?.('primary');
    return gated();
  };
  const read: ReadRunner = async (scopeId, readOptions, work) => {
    const minRevision = readOptions?.minRevision;
    if (minRevision !== undefined && (!Number.isSafeInteger(minRevision) || minRevision < 1)) {
      throw new ValidationError([{ field: 'minRevision', rule: 'must be an integer of at least 1' }]);
    }
    return readScopes(
      [{ scopeId, ...(minRevision === undefined ? {} : { minRevision }) }],
      readOptions,
      work,
    );
  };

  const sharedRateLimits = opened.primary ? postgresRateLimitsOf(opened.primary) : undefined;
  return {
    config,
    ...(sharedRateLimits ? { sharedRateLimits } : {}),
    memory: {
      forScope: (scopeId) => scopedMemory(service, scopeId, read),
      ...scopesMemory(service, readScopes),
      scopes: () => store.listScopes(),
      reembed: (scopeId) => service.reembed(scopeId),
      reindex: (scopeId) => service.rebuildLexicalIndex(scopeId),
      lexicalIndexState: (scopeId) => service.lexicalIndexState(scopeId),
    },
    capabilities: () => ({
      store: storeKind,
      embeddingProfile: embedder.profile,
      retrievalPolicyId: service.retrievalPolicy.id,
      lexicalProjectionId: service.retrievalPolicy.lexicalProjection.id,
      searchModes: ['auto', 'fts', 'vector', 'hybrid'] as const,
      searchChannels: service.searchChannels.map((channel) => channel.name),
      rerank: rerankStage
        ? {
            policyId: rerankStage.reranker.policyId,
            candidateLimit: rerankStage.candidateLimit,
            failurePolicy: rerankStage.failurePolicy,
          }
        : null,
    }),
    status: async () => {
      const primary = opened.primary ?? store;
      let database: RuntimeStatus['database'];
      try {
        const schema = await schemaState(primary);
        // A store of another kind answers a head read, or throws when its database does not.
        if (!opened.primary) await store.head('powercontext-readiness-probe');
        database = { reachable: true, migrationsCurrent: schema.current, missingMigrations: schema.missing };
      } catch {
        database = { reachable: false, migrationsCurrent: false, missingMigrations: [] };
      }
      const pool = poolUsageOf(primary);
      return {
        database,
        ...(pool ? { pool } : {}),
        replicas: replicated ? await replicated.lag() : [],
        ...(primary instanceof PostgresMemoryStore ? { indexes: primary.indexCounts() } : {}),
      };
    },
    close: async () => {
      await store.close();
      container.clearInstances();
    },
  };
}

function buildEmbedder(config: RuntimeConfig, models: () => ModelAdapters): Embedder {
  return config.embedding.kind === 'local' ? createLocalEmbedder() : models().embedder(config);
}

/** The decision backend from the environment, when a decision (or generation) model is configured. */
function buildDecisionBackend(config: RuntimeConfig, models: () => ModelAdapters): DecisionModel | null {
  return config.decision.model === undefined ? null : models().decisionBackend(config);
}

/**
 * The retrieval policy of the configuration: its BM25, context, fallback and channel settings, with an
 * application's own channels fused after the configured ones at weight 1.
 */
function configuredPolicy(
  config: RuntimeConfig,
  added: readonly SearchChannel[] = [],
  authority?: AuthorityWeights,
): RetrievalPolicy {
  const { retrieval } = config;
  const configured: readonly string[] = retrieval.channels;
  const own = added.map((channel) => channel.name).filter((name) => !configured.includes(name));
  return createRrfRetrievalPolicy({
    ...retrieval,
    channels: [...retrieval.channels, ...own],
    authority: authority ?? retrieval.authority,
  });
}

function requireGateBackend(backend: DecisionModel | null): DecisionModel {
  if (backend) return backend;
  throw new ConfigurationError(
    'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE',
    'needs a usable decision backend: set POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL (or the generation model)',
  );
}

/** Both observers get every event; one that throws does not keep the other from it. */
function bothObservers(first: SearchObserver, second: SearchObserver): SearchObserver {
  const each =
    <K extends keyof SearchObserver>(name: K) =>
    (event: Parameters<NonNullable<SearchObserver[K]>>[0]) => {
      for (const observer of [first, second]) {
        try {
          (observer[name] as ((e: typeof event) => void) | undefined)?.call(observer, event);
        } catch {
          // an observer's failure never fails a search
        }
      }
    };
  return {
    searchStarted: each('searchStarted'),
    searchEnded: each('searchEnded'),
    rerankStarted: each('rerankStarted'),
    rerankEnded: each('rerankEnded'),
  };
}
