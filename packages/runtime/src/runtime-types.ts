import type { DecisionModel } from '@powercontext/decision-model';
import type { RelevanceScorer } from '@powercontext/inference';
import type {
  AuthorityWeightsInput,
  ChannelName,
  Embedder,
  EmbeddingProfile,
  LexicalProjectionState,
  Logger,
  MemoryReranker,
  MemoryStore,
  RetrievalPolicy,
  SearchChannel,
  SearchObserver,
} from '@powercontext/memory-core';
import type { IndexCounts } from '@powercontext/store-postgres';
import type { RuntimeConfig } from './runtime-config.js';
import type { ScopedMemory } from './scoped-memory.js';
import type { ScopesMemory } from './scopes-memory.js';

// The runtime's public shapes: what `createRuntime` takes and returns (create-runtime.ts re-exports them).

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
  /**
   * The authority step after fusion (RFC 0014), replacing the POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_*
   * settings: pinned boost and tag weights, each 0..10. Ignored with an application's `retrievalPolicy`.
   */
  authority?: AuthorityWeightsInput;
  logger?: Logger;
  /**
   * An application-chosen reranker (RFC 0080's injection path). It is applied even when
   * POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED is false.
   */
  reranker?: MemoryReranker;
  /**
   * Whether a search of several scopes runs the reranker on its fused pool; replaces
   * POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE (default `skip`, as seed 003's global queries).
   */
  multiScopeRerank?: 'skip' | 'rerank';
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
   * times the data directory's databases, 32 to 128 MB); default `fit`.
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
  /**
   * `search` and `prepareContext` of several scopes at once (1-16) live beside `forScope` (issue 29,
   * "Several scopes"); see ScopesMemory.
   */
  readonly memory: ScopesMemory & {
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
