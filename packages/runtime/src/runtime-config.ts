import type { AuthorityWeights } from '@powercontext/memory-core';
import { z } from 'zod';
import { AUTHORITY_FIELDS, authorityFromEnv } from './authority-config.js';
import { ConfigurationError } from './configuration-error.js';
import { Secret } from './secret.js';

export interface RuntimeConfig {
  store:
    | {
        kind: 'postgres';
        connectionString: Secret;
        /** Streaming replicas that serve reads (POWERCONTEXT_SERVER_READ_DATABASE_URL); may be empty. */
        readConnectionStrings: Secret[];
        /** statement_timeout and the client-side query bound; undefined = the store's default. */
        statementTimeoutMs?: number;
        lockTimeoutMs?: number;
        /** POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: `citus` distributes the tables by scope at open; default none. */
        distribution?: 'none' | 'citus';
      }
    | { kind: 'pglite'; dataDir: string };
  /** How a read with `minRevision` is served when a replica has not replayed that revision. */
  reads: {
    minRevisionWaitMs: number;
    /** wait: up to the wait, then the primary; primary: the primary at once; error: up to the wait, then 409. */
    minRevisionFallback: 'wait' | 'primary' | 'error';
  };
  textSearchConfig: string;
  /** Mebibytes for the scope indexes held in memory (POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB); 0 = none. */
  indexMemoryMb: number;
  embedding:
    | { kind: 'local' }
    | {
        kind: 'model';
        model: string;
        dimension: number;
        minCosine: number;
        timeoutSeconds: number;
        maxRequests: number;
      };
  inference: { baseUrl?: string; apiKey?: Secret };
  generation: { model?: string; timeoutSeconds: number; maxRequests: number };
  decision: { model?: string; timeoutSeconds: number; maxRequests: number };
  /** The dedicated rerank model of the cross-encoder policy; absent when none is configured. */
  rerankModel?: { model: string; baseUrl: string; timeoutSeconds: number; maxRequests: number };
  rerank: {
    enabled: boolean;
    /** The selector as set (undefined = listwise); read only when reranking is enabled. */
    policy: 'listwise' | 'decision' | 'cross-encoder' | undefined;
    /** Cross-encoder policy: candidates scoring below it are not selected. Undefined = no minimum. */
    minScore?: number;
    decisionConcurrency: number;
    candidateLimit: number;
    failurePolicy: 'fail_closed' | 'fail_open';
    /** Whether a search of several scopes reranks its fused pool (`rerank`) or not (`skip`, seed 003). */
    multiScope: 'skip' | 'rerank';
    maxInFlight: number;
    queueTimeoutMs: number;
    deadlineMs: number;
  };
  writeGate: { mode: 'disabled' | 'shadow' | 'advisory'; timeoutMs: number };
  writeMaxAttempts: number;
  /** How long a write's idempotency key is kept in its scope. */
  idempotencyRetentionSeconds: number;
  /** The coarse-path retrieval policy's parameters (RFC 0007). */
  retrieval: {
    bm25: { k1: number; b: number; delta: number };
    contextWeights: number[];
    /** The search channels, in fusion order: fts and vector, plus entity and graph when set (RFC 0013). */
    channels: SearchChannelName[];
    channelWeights: { fts: number; vector: number; entity: number; graph: number };
    /** Lexical admission fallback (RFC 0002): a query whose terms match some entry never answers empty. */
    lexicalFallback: boolean;
    /** The authority step after fusion (RFC 0014); all weights 0 = no step. */
    authority: AuthorityWeights;
  };
}

/** Whether the configuration names a model, so the runtime loads the AI SDK adapters for it. */
export function usesAiSdk(config: RuntimeConfig): boolean {
  return (
    config.embedding.kind !== 'local' ||
    config.decision.model !== undefined ||
    config.generation.model !== undefined ||
    config.rerankModel !== undefined
  );
}

/**
 * Whether `createRuntime`, given this configuration and no adapters of the application's, has nothing
 * left to refuse before it opens the store: no model to build, no reranker, no write gate. Only then may
 * a command open the embedded store ahead of `createRuntime` (`openEmbeddedStoreAhead`).
 */
export function opensStoreFirst(config: RuntimeConfig): boolean {
  return !usesAiSdk(config) && !config.rerank.enabled && config.writeGate.mode === 'disabled';
}

/** The search channels the configuration can name, in fusion order; fts and vector always run. */
export const SEARCH_CHANNEL_NAMES = ['fts', 'vector', 'entity', 'graph'] as const;
export type SearchChannelName = (typeof SEARCH_CHANNEL_NAMES)[number];
const CHANNELS_RULE = 'must be fts,vector plus any of entity and graph, comma-separated, each once';

/** Default RRF weight of the vector channel with the local embedder, measured in RFC 0007. */
export const LOCAL_EMBEDDER_VECTOR_WEIGHT = 0.1;

const MODEL_SPEC = /^(openai|openai-compatible):.+$/;
const MODEL_RULE = 'must be openai:<model> or openai-compatible:<model>';

const number = (min: number, max: number, integer: boolean) =>
  z
    .string()
    .trim()
    .regex(integer ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/, {
      error: integer ? 'must be an integer' : 'must be a number',
    })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

const FIELDS = {
  POWERCONTEXT_SERVER_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, { error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
  POWERCONTEXT_SERVER_READ_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/[^,]+(,\s*postgres(ql)?:\/\/[^,]+)*$/, {
      error: 'must be one or more comma-separated postgres:// or postgresql:// URLs',
    })
    .optional(),
  POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: z
    .enum(['none', 'citus'], { error: 'must be none or citus' })
    .default('none'),
  POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS: number(0, 60_000, true).default(2_000),
  POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK: z
    .enum(['wait', 'primary', 'error'], { error: 'must be wait, primary or error' })
    .default('wait'),
  POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS: number(100, 3_600_000, true).optional(),
  POWERCONTEXT_SERVER_DATABASE_LOCK_TIMEOUT_MS: number(100, 3_600_000, true).optional(),
  POWERCONTEXT_SERVER_DATA_DIR: z
    .string()
    .min(1, { error: 'must not be empty' })
    .default('./.powercontext/data'),
  POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: number(0, 65_536, true).default(288),
  POWERCONTEXT_SERVER_STORE_TEXT_SEARCH_CONFIG: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, { error: 'must be a text search configuration name like english' })
    .default('english'),
  POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: z
    .string()
    .regex(/^(openai|openai-compatible):.+$/, {
      error: 'must be openai:<model> or openai-compatible:<model>',
    })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION: number(1, 16_000, true).optional(),
  POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MIN_COSINE: number(-1, 1, false).default(0.3),
  POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_TIMEOUT_SECONDS: number(0.1, 600, false).default(30),
  POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MAX_REQUESTS: number(1, 10, true).default(2),
  POWERCONTEXT_SERVER_INFERENCE_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_API_KEY: z.string().min(1, { error: 'must not be empty' }).optional(),
  POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: z
    .string()
    .regex(MODEL_SPEC, { error: MODEL_RULE })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: number(0.1, 600, false).default(30),
  POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: number(1, 10, true).default(2),
  POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL: z
    .string()
    .regex(MODEL_SPEC, { error: MODEL_RULE })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS: number(0.1, 600, false).optional(),
  POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS: number(1, 10, true).optional(),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: z
    .enum(['listwise', 'decision', 'cross-encoder'], { error: 'must be listwise, decision or cross-encoder' })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL: z
    .string()
    .regex(/^openai-compatible:\S+$/, {
      error: 'must be openai-compatible:<model> (a server with POST /v1/rerank: llama.cpp, vLLM)',
    })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_RERANK_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .optional(),
  POWERCONTEXT_SERVER_INFERENCE_RERANK_TIMEOUT_SECONDS: number(0.1, 600, false).optional(),
  POWERCONTEXT_SERVER_INFERENCE_RERANK_MAX_REQUESTS: number(1, 10, true).optional(),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE: number(-1_000_000, 1_000_000, false).optional(),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DECISION_CONCURRENCY: number(1, 16, true).default(1),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: z
    .enum(['disabled', 'shadow', 'advisory'], { error: 'must be disabled, shadow or advisory' })
    .default('disabled'),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_TIMEOUT_MS: number(1, 600_000, true).default(5_000),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT: number(1, 100, true).default(30),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY: z
    .enum(['fail_closed', 'fail_open'], { error: 'must be fail_closed or fail_open' })
    .default('fail_closed'),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE: z
    .enum(['skip', 'rerank'], { error: 'must be skip or rerank' })
    .default('skip'),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MAX_IN_FLIGHT: number(1, 256, true).default(8),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_QUEUE_TIMEOUT_MS: number(0, 60_000, true).default(1_000),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: number(1, 3_600_000, true).optional(),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS: number(1, 20, true).default(3),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS: number(60, 2_592_000, true).default(
    86_400,
  ),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: z
    .string()
    .trim()
    .regex(/^(none|(0(\.\d+)?|1(\.0+)?)(,(0(\.\d+)?|1(\.0+)?)){0,7})$/, {
      error: 'must be none or 1-8 comma-separated weights in (0, 1], nearest neighbour first',
    })
    .refine((value) => value === 'none' || value.split(',').every((weight) => Number(weight) > 0), {
      error: 'must be none or 1-8 comma-separated weights in (0, 1], nearest neighbour first',
    })
    .default('0.35,0.175')
    .transform((value) => (value === 'none' ? [] : value.split(',').map(Number))),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_VECTOR_WEIGHT: number(0, 1, false).optional(),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS: z
    .string()
    .transform((value) => value.split(',').map((name) => name.trim()))
    .refine(
      (names) =>
        names.includes('fts') &&
        names.includes('vector') &&
        new Set(names).size === names.length &&
        names.every((name) => (SEARCH_CHANNEL_NAMES as readonly string[]).includes(name)),
      { error: CHANNELS_RULE },
    )
    .transform((names) => SEARCH_CHANNEL_NAMES.filter((name) => names.includes(name)))
    .default(['fts', 'vector']),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_ENTITY_WEIGHT: number(0, 1, false).default(1),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT: number(0, 1, false).default(0.5),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_FALLBACK: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('true')
    .transform((value) => value === 'true'),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_K1: number(0, 10, false).default(0.8),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_B: number(0, 1, false).default(0),
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_DELTA: number(0, 10, false).default(0.5),
  ...AUTHORITY_FIELDS,
};

const environmentSchema = z.object(FIELDS);

/**
 * Parses the environment once, at the edge. Empty strings count as unset. Invalid values are errors,
 * never silently replaced by defaults.
 */
export function loadRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const relevant = Object.fromEntries(
    Object.keys(FIELDS).flatMap((name) =>
      env[name] === undefined || env[name] === '' ? [] : [[name, env[name]]],
    ),
  );
  const parsed = environmentSchema.safeParse(relevant);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigurationError(String(issue.path[0] ?? 'configuration'), issue.message);
  }
  const e = parsed.data;
  const model = e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL;
  if (model && e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION === undefined) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION',
      'is required when POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL is set',
    );
  }
  if (e.POWERCONTEXT_SERVER_READ_DATABASE_URL && !e.POWERCONTEXT_SERVER_DATABASE_URL) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_READ_DATABASE_URL',
      'needs POWERCONTEXT_SERVER_DATABASE_URL (replicas serve reads of a PostgreSQL primary)',
    );
  }
  if (e.POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION === 'citus' && !e.POWERCONTEXT_SERVER_DATABASE_URL) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION',
      'citus needs POWERCONTEXT_SERVER_DATABASE_URL (a Citus coordinator); the embedded PGlite store is not distributed',
    );
  }
  if (e.POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION === 'citus' && e.POWERCONTEXT_SERVER_READ_DATABASE_URL) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION',
      'citus cannot be combined with POWERCONTEXT_SERVER_READ_DATABASE_URL (reads of a Citus cluster go to its coordinator)',
    );
  }
  const generationModel = e.POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL;
  const decisionModel = e.POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL ?? generationModel;
  const needsBaseUrl = [model, generationModel, decisionModel].some((spec) =>
    spec?.startsWith('openai-compatible:'),
  );
  if (needsBaseUrl && !e.POWERCONTEXT_SERVER_INFERENCE_BASE_URL) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_BASE_URL',
      'is required by openai-compatible models',
    );
  }
  const timeoutSeconds = e.POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS;
  const maxRequests = e.POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS;
  const rerankModel = rerankModelConfig(e, timeoutSeconds, maxRequests);
  const policy = e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY;
  const decisionTimeoutSeconds = e.POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS ?? timeoutSeconds;
  const decisionMaxRequests = e.POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS ?? maxRequests;
  // The stage deadline follows the calls the policy makes: the rerank model's bound for cross-encoder;
  // for decision, one decision call's bound per step of the walk (up to the candidate limit, k calls
  // side by side at concurrency k), seed 001's per-call timeout; else one generation call's bound.
  const walkSteps = Math.ceil(
    e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT /
      e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DECISION_CONCURRENCY,
  );
  const bound =
    policy === 'cross-encoder' && rerankModel
      ? rerankModel.timeoutSeconds * rerankModel.maxRequests
      : policy === 'decision'
        ? decisionTimeoutSeconds * decisionMaxRequests * walkSteps
        : timeoutSeconds * maxRequests;
  return {
    store: e.POWERCONTEXT_SERVER_DATABASE_URL
      ? {
          kind: 'postgres',
          connectionString: new Secret(e.POWERCONTEXT_SERVER_DATABASE_URL),
          readConnectionStrings: (e.POWERCONTEXT_SERVER_READ_DATABASE_URL ?? '')
            .split(',')
            .map((url) => url.trim())
            .filter((url) => url !== '')
            .map((url) => new Secret(url)),
          ...(e.POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS === undefined
            ? {}
            : { statementTimeoutMs: e.POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS }),
          ...(e.POWERCONTEXT_SERVER_DATABASE_LOCK_TIMEOUT_MS === undefined
            ? {}
            : { lockTimeoutMs: e.POWERCONTEXT_SERVER_DATABASE_LOCK_TIMEOUT_MS }),
          distribution: e.POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION,
        }
      : { kind: 'pglite', dataDir: e.POWERCONTEXT_SERVER_DATA_DIR },
    reads: {
      minRevisionWaitMs: e.POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS,
      minRevisionFallback: e.POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK,
    },
    textSearchConfig: e.POWERCONTEXT_SERVER_STORE_TEXT_SEARCH_CONFIG,
    indexMemoryMb: e.POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB,
    embedding: model
      ? {
          kind: 'model',
          model,
          dimension: e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION!,
          minCosine: e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MIN_COSINE,
          timeoutSeconds: e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_TIMEOUT_SECONDS,
          maxRequests: e.POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MAX_REQUESTS,
        }
      : { kind: 'local' },
    inference: {
      ...(e.POWERCONTEXT_SERVER_INFERENCE_BASE_URL
        ? { baseUrl: e.POWERCONTEXT_SERVER_INFERENCE_BASE_URL }
        : {}),
      ...(e.POWERCONTEXT_SERVER_INFERENCE_API_KEY
        ? { apiKey: new Secret(e.POWERCONTEXT_SERVER_INFERENCE_API_KEY) }
        : {}),
    },
    generation: { ...(generationModel ? { model: generationModel } : {}), timeoutSeconds, maxRequests },
    decision: {
      ...(decisionModel ? { model: decisionModel } : {}),
      timeoutSeconds: decisionTimeoutSeconds,
      maxRequests: decisionMaxRequests,
    },
    ...(rerankModel ? { rerankModel } : {}),
    rerank: {
      enabled: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED,
      policy,
      ...(e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE === undefined
        ? {}
        : { minScore: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE }),
      decisionConcurrency: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DECISION_CONCURRENCY,
      candidateLimit: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT,
      failurePolicy: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY,
      multiScope: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE,
      maxInFlight: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MAX_IN_FLIGHT,
      queueTimeoutMs: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_QUEUE_TIMEOUT_MS,
      // Default: the generation bound itself, so the defaults never change RFC 0080 behaviour.
      deadlineMs: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS ?? Math.round(bound * 1000),
    },
    writeGate: {
      mode: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE,
      timeoutMs: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_TIMEOUT_MS,
    },
    writeMaxAttempts: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS,
    idempotencyRetentionSeconds: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS,
    retrieval: {
      bm25: {
        k1: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_K1,
        b: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_B,
        delta: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_DELTA,
      },
      contextWeights: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS,
      lexicalFallback: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_FALLBACK,
      authority: authorityFromEnv(e),
      channels: [...e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS],
      channelWeights: {
        fts: 1,
        // The local hash embedder mostly repeats what BM25 finds (RFC 0007): its ranks fill and break
        // ties rather than displace lexical matches. A model embedder counts fully, as RFC 0080.
        vector:
          e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_VECTOR_WEIGHT ??
          (model ? 1 : LOCAL_EMBEDDER_VECTOR_WEIGHT),
        entity: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_ENTITY_WEIGHT,
        graph: e.POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT,
      },
    },
  };
}

/**
 * The rerank model settings, when a rerank model is set. Its base URL defaults to the shared inference
 * base URL; timeout and attempts default to the generation ones.
 */
function rerankModelConfig(
  e: z.output<typeof environmentSchema>,
  timeoutSeconds: number,
  maxRequests: number,
): RuntimeConfig['rerankModel'] {
  const model = e.POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL;
  if (!model) return undefined;
  const baseUrl = e.POWERCONTEXT_SERVER_INFERENCE_RERANK_BASE_URL ?? e.POWERCONTEXT_SERVER_INFERENCE_BASE_URL;
  if (!baseUrl) {
    throw new ConfigurationError(
      'POWERCONTEXT_SERVER_INFERENCE_RERANK_BASE_URL',
      'is required by the rerank model (or set POWERCONTEXT_SERVER_INFERENCE_BASE_URL)',
    );
  }
  return {
    model,
    baseUrl,
    timeoutSeconds: e.POWERCONTEXT_SERVER_INFERENCE_RERANK_TIMEOUT_SECONDS ?? timeoutSeconds,
    maxRequests: e.POWERCONTEXT_SERVER_INFERENCE_RERANK_MAX_REQUESTS ?? maxRequests,
  };
}
