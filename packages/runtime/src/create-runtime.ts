import 'reflect-metadata';
import { createLlmDecisionModel, type DecisionModel } from '@powercontext/decision-model';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import type { RelevanceScorer } from '@powercontext/inference';
import type * as AiSdkAdapters from '@powercontext/inference-ai-sdk';
import {
  type ChannelName,
  type Embedder,
  type EmbeddingProfile,
  type LexicalProjectionState,
  type Logger,
  type MemoryReranker,
  MemoryService,
  type MemoryStore,
  noopLogger,
  RerankStage,
  type RetrievalPolicy,
  type SearchChannel,
  type SearchObserver,
  ValidationError,
} from '@powercontext/memory-core';
import { createOpenTelemetrySearchObserver } from '@powercontext/observability-otel';
import { createCrossEncoderReranker } from '@powercontext/rerank-cross-encoder';
import { createDecisionMemoryReranker } from '@powercontext/rerank-decision';
import { createListwiseReranker } from '@powercontext/rerank-listwise';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import {
  assertRevisionVisible,
  createPGliteMemoryStore,
  createPostgresMemoryStore,
  type IndexCounts,
  PostgresMemoryStore,
  poolUsageOf,
  postgresRateLimitsOf,
  ReplicatedStore,
  replicaLagSeconds,
  schemaState,
} from '@powercontext/store-postgres';
import { instanceCachingFactory, container as rootContainer } from 'tsyringe';
import { ConfigurationError } from './configuration-error.js';
import { DECISION_ROLES, decisionHandleFor } from './decision-roles.js';
import { createDecisionWriteAdvisor } from './decision-write-advisor.js';
import { loadRuntimeConfig, type RuntimeConfig, usesAiSdk } from './runtime-config.js';
import { type ReadRunner, type ScopedMemory, scopedMemory } from './scoped-memory.js';
import { TOKENS } from './tokens.js';

export interface CreateRuntimeOptions {
  /** Environment to read; defaults to `process.env`. Ignored when `config` is given. */
  env?: Record<string, string | undefined>;
  config?: RuntimeConfig;
  /** Application-provided adapters; each replaces the one the configuration would build. */
  store?: MemoryStore;
  embedder?: Embedder;
  retrievalPolicy?: RetrievalPolicy;
  /**
   * Search channels of the application's own (RFC 0013, "Adding a channel"), run beside the configured
   * ones. The configured policy fuses each with weight 1 after the configured channels; with an
   * application's `retrievalPolicy`, that policy must name them in its `channels`.
   */
  searchChannels?: readonly SearchChannel[];
  logger?: Logger;
  /**
   * An application-chosen reranker (RFC 0080's injection path). It is applied even when
   * POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED is false.
   */
  reranker?: MemoryReranker;
  /**
   * Receives search and rerank events (never text). Default: OpenTelemetry spans and metrics through
   * `@opentelemetry/api`, which record nothing unless the application installs an SDK.
   */
  observer?: SearchObserver;
  /**
   * Also receives the search and rerank events, next to `observer` (or the OpenTelemetry default),
   * e.g. the server's Prometheus metrics.
   */
  additionalObserver?: SearchObserver;
  /** Told where each read ran: the primary or a read replica (POWERCONTEXT_SERVER_READ_DATABASE_URL). */
  onRead?: (target: 'primary' | 'replica') => void;
  /**
   * PostgreSQL's shared_buffers for the embedded store in this process (e.g. `32MB`, or `fit`: 1.25
   * times the data directory's databases, 32 to 128 MB); default the data directory's own, 128 MB.
   * PGlite zeroes the whole pool at every start, so a short-lived process that reads little (the
   * server's `memory` commands) opens faster with a small one, and the server's long-lived ones with
   * one that fits the data. Ignored on PostgreSQL.
   */
  pgliteSharedBuffers?: string;
  /** An application-provided decision backend; it replaces the one built from the environment. */
  decisionModel?: DecisionModel;
  /**
   * An application-provided rerank model for the cross-encoder policy (e.g. `createAiSdkRelevanceScorer`
   * over any AI SDK reranking model); it replaces the one built from POWERCONTEXT_SERVER_INFERENCE_RERANK_*.
   */
  relevanceScorer?: RelevanceScorer;
}

export interface RuntimeCapabilities {
  store: 'pglite' | 'postgres' | 'custom';
  embeddingProfile: EmbeddingProfile;
  retrievalPolicyId: string;
  /** The lexical index projection new writes use (neighbour context weights). */
  lexicalProjectionId: string;
  searchModes: readonly ['auto', 'fts', 'vector', 'hybrid'];
  /** The channels a search runs (those its mode allows), in fusion order (RFC 0013). */
  searchChannels: readonly ChannelName[];
  /** The rerank policy in use, or null when search returns the coarse path. */
  rerank: { policyId: string; candidateLimit: number; failurePolicy: 'fail_closed' | 'fail_open' } | null;
}

export interface Runtime {
  readonly config: RuntimeConfig;
  readonly memory: {
    forScope(scopeId: string): ScopedMemory;
    /** Every scope that has a memory. */
    scopes(): Promise<string[]>;
    /** Embeds entries that lack a vector of the configured profile, so auto search can use hybrid again. */
    reembed(scopeId: string): Promise<number>;
    /**
     * Rebuilds the scope's lexical index under the configured projection (neighbour context), after
     * its weights changed. Returns how many entries were re-projected.
     */
    reindex(scopeId: string): Promise<number>;
    /** Active entries whose lexical projection another policy built (0 = the index is current). */
    lexicalIndexState(scopeId: string): Promise<LexicalProjectionState>;
  };
  capabilities(): RuntimeCapabilities;
  /**
   * What an operator's readiness check and metrics read: whether the database answers and holds
   * every migration, the pool's usage, and each read replica's lag (undefined when it did not answer).
   */
  status?(): Promise<RuntimeStatus>;
  /**
   * Token buckets kept in the PostgreSQL database (table pc_rate_limits), shared by every process on
   * it; absent on PGlite and custom stores. The server uses them with POWERCONTEXT_SERVER_RATE_LIMIT_STORE=postgres.
   */
  readonly sharedRateLimits?: {
    take(
      keyId: string,
      limit: { requests: number; windowSeconds: number },
    ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  };
  close(): Promise<void>;
}

export interface RuntimeStatus {
  database: { reachable: boolean; migrationsCurrent: boolean; missingMigrations: string[] };
  pool?: { total: number; idle: number; waiting: number };
  replicas: { name: string; lagSeconds: number | undefined; down: boolean }[];
  /** What the primary store's indexes in memory have done since it opened (PostgreSQL and PGlite stores). */
  indexes?: IndexCounts;
}

/**
 * The composition root: parses configuration, opens the store, and wires adapters into the memory
 * service through a child tsyringe container (factories with explicit tokens, no decorators).
 */
export async function createRuntime(options: CreateRuntimeOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadRuntimeConfig(options.env ?? process.env);
  if (usesAiSdk(config)) loadedAiSdk ??= await import('@powercontext/inference-ai-sdk');
  const container = rootContainer.createChildContainer();
  container.register(TOKENS.config, { useValue: config });
  container.register(TOKENS.logger, { useValue: options.logger ?? noopLogger });
  container.register(TOKENS.embedder, {
    useFactory: instanceCachingFactory((c) => options.embedder ?? buildEmbedder(c.resolve(TOKENS.config))),
  });
  container.register(TOKENS.retrievalPolicy, {
    useFactory: instanceCachingFactory(
      (c) => options.retrievalPolicy ?? configuredPolicy(c.resolve(TOKENS.config), options.searchChannels),
    ),
  });

  const observer = options.observer ?? createOpenTelemetrySearchObserver();
  container.register(TOKENS.observer, {
    useValue: options.additionalObserver ? bothObservers(observer, options.additionalObserver) : observer,
  });
  // One decision backend instance serves every decision role; each role gets its own handle.
  container.register(TOKENS.decisionBackend, {
    useFactory: instanceCachingFactory(
      (c) => options.decisionModel ?? buildDecisionBackend(c.resolve(TOKENS.config)),
    ),
  });
  container.register(TOKENS.reranker, {
    useFactory: instanceCachingFactory(
      (c) =>
        options.reranker ??
        buildReranker(
          c.resolve(TOKENS.config),
          () => c.resolve(TOKENS.decisionBackend),
          c.resolve(TOKENS.logger),
          options.relevanceScorer,
          options.decisionModel !== undefined,
        ),
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
  const opened = options.store
    ? { store: options.store }
    : await openStore(config, container.resolve(TOKENS.logger), options.pgliteSharedBuffers);
  const store = opened.store;
  const replicated = opened.replicated;
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
          decisionKind: DECISION_ROLES.writeGate.decisionKind,
          decisionModel: decisionHandleFor(DECISION_ROLES.writeGate, gateBackend, {
            timeoutMs: config.writeGate.timeoutMs,
            logger: container.resolve(TOKENS.logger),
          }),
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

  const read: ReadRunner = async (scopeId, readOptions, work) => {
    const minRevision = readOptions?.minRevision;
    if (minRevision !== undefined && (!Number.isSafeInteger(minRevision) || minRevision < 1)) {
      throw new ValidationError([{ field: 'minRevision', rule: 'must be an integer of at least 1' }]);
    }
    // The gate (the server's search lane) is taken only once the revision is visible: a wait for a
    // replica to replay it holds nothing but the caller's own in-flight slot.
    const gate = readOptions?.gate;
    const gated = gate ? () => gate(work) : work;
    if (replicated) {
      const outcome = await replicated.read(scopeId, minRevision, gated);
      readOptions?.onServed?.(outcome.servedBy.kind);
      options.onRead?.(outcome.servedBy.kind);
      return outcome.value;
    }
    if (minRevision !== undefined) await assertRevisionVisible(store, scopeId, minRevision);
    readOptions?.onServed?.('primary');
    options.onRead?.('primary');
    return gated();
  };

  const sharedRateLimits = opened.primary ? postgresRateLimitsOf(opened.primary) : undefined;
  return {
    config,
    ...(sharedRateLimits ? { sharedRateLimits } : {}),
    memory: {
      forScope: (scopeId) => scopedMemory(service, scopeId, read),
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

/**
 * The AI SDK adapters (and with them `ai` and the provider packages) load only when the configuration
 * names a model: the default set-up (local embedder, no reranker) starts without them.
 */
let loadedAiSdk: typeof AiSdkAdapters | undefined;

function aiSdk(): typeof AiSdkAdapters {
  if (!loadedAiSdk) throw new Error('internal: the AI SDK adapters were not loaded for this configuration');
  return loadedAiSdk;
}

/**
 * The retrieval policy of the configuration: its BM25, context, fallback and channel settings, with an
 * application's own channels fused after the configured ones at weight 1.
 */
function configuredPolicy(config: RuntimeConfig, added: readonly SearchChannel[] = []): RetrievalPolicy {
  const { retrieval } = config;
  const configured: readonly string[] = retrieval.channels;
  const own = added.map((channel) => channel.name).filter((name) => !configured.includes(name));
  return createRrfRetrievalPolicy({ ...retrieval, channels: [...retrieval.channels, ...own] });
}

function buildEmbedder(config: RuntimeConfig): Embedder {
  const embedding = config.embedding;
  if (embedding.kind === 'local') return createLocalEmbedder();
  const model = aiSdk().createEmbeddingModel(embedding.model, connection(config));
  return aiSdk().createAiSdkEmbedder({
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

function connection(config: RuntimeConfig) {
  return {
    ...(config.inference.baseUrl ? { baseUrl: config.inference.baseUrl } : {}),
    ...(config.inference.apiKey ? { apiKey: config.inference.apiKey.reveal() } : {}),
  };
}

/** The decision backend from the environment, when a decision (or generation) model is configured. */
function buildDecisionBackend(config: RuntimeConfig): DecisionModel | null {
  const spec = config.decision.model;
  if (!spec) return null;
  const generator = aiSdk().createAiSdkStructuredGenerator({
    model: aiSdk().createLanguageModel(spec, connection(config)),
    timeoutSeconds: config.decision.timeoutSeconds,
    maxRequests: config.decision.maxRequests,
  });
  return createLlmDecisionModel({ generator });
}

function requireGateBackend(backend: DecisionModel | null): DecisionModel {
  if (backend) return backend;
  throw new ConfigurationError(
    'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE',
    'needs a usable decision backend: set POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL (or the generation model)',
  );
}

/**
 * The environment-driven reranker, only when enabled: listwise over the generation model (default),
 * the decision reranker over the rerank role's unwrapped decision handle, or the cross-encoder over the
 * rerank model (injected scorer first). Env-built rerankers carry the model spec as their `modelId`.
 */
function buildReranker(
  config: RuntimeConfig,
  decisionBackend: () => DecisionModel | null,
  logger: Logger,
  relevanceScorer: RelevanceScorer | undefined,
  decisionModelInjected: boolean,
): MemoryReranker | null {
  if (!config.rerank.enabled) return null;
  if (config.rerank.policy === 'cross-encoder') {
    const scorer = relevanceScorer ?? buildRelevanceScorer(config);
    return createCrossEncoderReranker({
      scorer,
      ...(config.rerank.minScore === undefined ? {} : { minScore: config.rerank.minScore }),
    });
  }
  if (config.rerank.policy === 'decision') {
    const backend = decisionBackend();
    if (!backend) {
      throw new ConfigurationError(
        'POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL',
        'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY=decision (or set the generation model, or inject a decision model)',
      );
    }
    const reranker = createDecisionMemoryReranker({
      decisionModel: decisionHandleFor(DECISION_ROLES.rerank, backend),
      concurrency: config.rerank.decisionConcurrency,
      logger,
    });
    return decisionModelInjected ? reranker : withModelId(reranker, config.decision.model);
  }
  const spec = config.generation.model;
  if (!spec) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL',
      'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED=true and no reranker is injected',
    );
  }
  const generator = aiSdk().createAiSdkStructuredGenerator({
    model: aiSdk().createLanguageModel(spec, connection(config)),
    timeoutSeconds: config.generation.timeoutSeconds,
    maxRequests: config.generation.maxRequests,
  });
  return withModelId(createListwiseReranker({ generator }), spec);
}

/** The cross-encoder's rerank model from the environment; a start-up error when none is set. */
function buildRelevanceScorer(config: RuntimeConfig): RelevanceScorer {
  const rerankModel = config.rerankModel;
  if (!rerankModel) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL',
      'is required when POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY=cross-encoder (or inject a relevance scorer or a reranker)',
    );
  }
  const separator = rerankModel.model.indexOf(':');
  return aiSdk().createAiSdkRelevanceScorer({
    model: aiSdk().createRerankEndpointModel({
      model: rerankModel.model.slice(separator + 1),
      baseUrl: rerankModel.baseUrl,
      ...(config.inference.apiKey ? { apiKey: config.inference.apiKey.reveal() } : {}),
    }),
    modelId: rerankModel.model,
    timeoutSeconds: rerankModel.timeoutSeconds,
    maxRequests: rerankModel.maxRequests,
  });
}

/** `reranker` declaring `modelId` (the spec it was built from), so traces and evidence name the model. */
function withModelId(reranker: MemoryReranker, modelId: string | undefined): MemoryReranker {
  if (modelId === undefined) return reranker;
  return {
    policyId: reranker.policyId,
    modelId,
    rerank: (query, candidates, limit, options) => reranker.rerank(query, candidates, limit, options),
  };
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

interface OpenedStore {
  store: MemoryStore;
  /** The primary's own store when reads are routed to replicas (or the store itself). */
  primary?: MemoryStore;
  replicated?: ReplicatedStore;
}

/**
 * The store's indexes in memory within POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: two thirds for the
 * lexical indexes, one third for the vectors (RFC 0002, "Indexes that follow writes"); none at 0.
 */
function indexCachesOf(config: RuntimeConfig) {
  const bytes = config.indexMemoryMb * 1024 * 1024;
  if (bytes === 0) return { lexicalIndexCache: false, vectorIndexCache: false } as const;
  return {
    lexicalIndexCache: { maxBytes: Math.floor((bytes * 2) / 3) },
    vectorIndexCache: { maxBytes: Math.floor(bytes / 3) },
  };
}

async function openStore(
  config: RuntimeConfig,
  logger: Logger,
  pgliteSharedBuffers: string | undefined,
): Promise<OpenedStore> {
  if (config.store.kind !== 'postgres') {
    return {
      store: await createPGliteMemoryStore({
        dataDir: config.store.dataDir,
        textSearchConfig: config.textSearchConfig,
        ...indexCachesOf(config),
        ...(pgliteSharedBuffers === undefined ? {} : { sharedBuffers: pgliteSharedBuffers }),
      }),
    };
  }
  const settings = config.store;
  const bounds = {
    ...(settings.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: settings.statementTimeoutMs }),
    ...(settings.lockTimeoutMs === undefined
      ? settings.statementTimeoutMs === undefined
        ? {}
        : { lockTimeoutMs: settings.statementTimeoutMs }
      : { lockTimeoutMs: settings.lockTimeoutMs }),
  };
  const primary = await createPostgresMemoryStore({
    connectionString: settings.connectionString.reveal(),
    textSearchConfig: config.textSearchConfig,
    ...indexCachesOf(config),
    ...bounds,
    onMigrated: ({ applied }) => {
      if (applied.length > 0)
        logger.info('store.migrations_applied', { migrations: applied.join(','), count: applied.length });
    },
  });
  if (settings.readConnectionStrings.length === 0) return { store: primary, primary };
  // Replicas open without connecting (no migration on a standby): one that is down at start-up is
  // skipped like one that goes down later.
  const replicas = await Promise.all(
    settings.readConnectionStrings.map(async (secret) => {
      const replica = await createPostgresMemoryStore({
        connectionString: secret.reveal(),
        textSearchConfig: config.textSearchConfig,
        ...indexCachesOf(config),
        readOnly: true,
        ...bounds,
      });
      return {
        name: replicaName(secret.reveal()),
        store: replica,
        lagSeconds: () => replicaLagSeconds(replica),
      };
    }),
  );
  const replicated = new ReplicatedStore({
    primary,
    replicas,
    minRevisionWaitMs: config.reads.minRevisionWaitMs,
    minRevisionFallback: config.reads.minRevisionFallback,
    onReplicaDown: (name, error) =>
      logger.warn('store.replica_down', {
        replica: name,
        errorName: error instanceof Error ? error.name : typeof error,
        action: 'skipped for 5 s; reads go to another replica or the primary',
      }),
  });
  return { store: replicated.store, primary, replicated };
}

/** host:port/database of a replica URL: how logs, metrics and /readyz name it (never credentials). */
function replicaName(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
