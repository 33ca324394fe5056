/** One row of the configuration table: every environment name the runtime reads, in full. */
export interface ConfigurationSetting {
  name: string;
  default: string;
  range: string;
  origin: 'RFC 0080' | 'project extension';
  description: string;
}

/** The single configuration table. README and docs render it; `loadRuntimeConfig` reads exactly these names. */
export const CONFIGURATION_TABLE: readonly ConfigurationSetting[] = [
  {
    name: 'POWERCONTEXT_SERVER_DATABASE_URL',
    default: '(unset: embedded PGlite)',
    range: 'postgres:// or postgresql:// URL',
    origin: 'project extension',
    description: 'PostgreSQL + pgvector database; when unset the embedded PGlite store is used.',
  },
  {
    name: 'POWERCONTEXT_SERVER_READ_DATABASE_URL',
    default: '(unset: every read on the primary)',
    range: 'comma-separated postgres:// URLs',
    origin: 'project extension',
    description:
      'Streaming replicas of the database: searches, list, get, changes and context preparation read there; writes go to the primary.',
  },
  {
    name: 'POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS',
    default: '2000',
    range: '0..60000',
    origin: 'project extension',
    description: 'How long a read with `min_revision` waits for a replica to replay that revision.',
  },
  {
    name: 'POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK',
    default: 'wait',
    range: 'wait, primary, error',
    origin: 'project extension',
    description:
      'A replica behind `min_revision`: wait (up to the wait, then the primary), primary (at once), or error (up to the wait, then 409 revision_not_visible).',
  },
  {
    name: 'POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS',
    default: '5 s under the request timeout (115000)',
    range: '100..3600000',
    origin: 'project extension',
    description:
      'Bound on one database statement (statement_timeout; a connection that does not answer is dropped 250 ms later): 503 database_unavailable.',
  },
  {
    name: 'POWERCONTEXT_SERVER_DATABASE_LOCK_TIMEOUT_MS',
    default: '(the statement timeout)',
    range: '100..3600000',
    origin: 'project extension',
    description: 'How long a statement waits for a lock (lock_timeout): 503 database_unavailable.',
  },
  {
    name: 'POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION',
    default: 'none',
    range: 'none, citus',
    origin: 'project extension',
    description:
      'citus: on a Citus coordinator, each open distributes the tables by scope (reference tables for the global ones), idempotently; a database without Citus fails the start.',
  },
  {
    name: 'POWERCONTEXT_SERVER_DATA_DIR',
    default: './.powercontext/data',
    range: 'directory path',
    origin: 'project extension',
    description: 'Where the embedded PGlite store persists (ignored with a database URL).',
  },
  {
    name: 'POWERCONTEXT_SERVER_STORE_TEXT_SEARCH_CONFIG',
    default: 'english',
    range: 'a PostgreSQL text search configuration name',
    origin: 'project extension',
    description: 'Language analysis of the full-text channel; fixed for a database once written.',
  },
  {
    name: 'POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB',
    default: '288',
    range: '0..65536',
    origin: 'project extension',
    description:
      'Memory for the scope indexes held in memory (two thirds lexical, one third vectors; one scope at most a quarter of each); 0 turns them off and every search reads the database.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL',
    default: '(unset: local hash embedder)',
    range: 'openai:<model> or openai-compatible:<model>',
    origin: 'project extension',
    description:
      'Embedding model for the vector channel. Unset uses the local lexical embedder (no download).',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION',
    default: '(required with a model)',
    range: '1..16000',
    origin: 'project extension',
    description: 'Dimension of the embedding model; part of the embedding profile id.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MIN_COSINE',
    default: '0.3',
    range: '-1..1',
    origin: 'project extension',
    description: 'Vector-channel admission threshold of a model embedding profile.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_TIMEOUT_SECONDS',
    default: '30',
    range: '0.1..600',
    origin: 'project extension',
    description: 'Bound on one embedding call, retries included.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MAX_REQUESTS',
    default: '2',
    range: '1..10',
    origin: 'project extension',
    description: 'Total HTTP attempts per embedding call.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL',
    default: '(unset)',
    range: 'openai:<model> or openai-compatible:<model>',
    origin: 'RFC 0080',
    description: 'Generation model of the listwise reranker (one structured request per reranked search).',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS',
    default: '30',
    range: '0.1..600',
    origin: 'RFC 0080',
    description: 'Bound on one generation operation, retries included, through one abort signal.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS',
    default: '2',
    range: '1..10',
    origin: 'RFC 0080',
    description: 'Total HTTP attempts per generation operation (AI SDK maxRetries = value - 1).',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL',
    default: 'the generation model',
    range: 'openai:<model> or openai-compatible:<model>',
    origin: 'project extension',
    description:
      'Decision backend (one yes/no/abstain question per request); one instance serves every decision role.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS',
    default: 'the generation timeout',
    range: '0.1..600',
    origin: 'project extension',
    description: 'Bound on one decision, retries included.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS',
    default: 'the generation max requests',
    range: '1..10',
    origin: 'project extension',
    description: 'Total HTTP attempts per decision.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL',
    default: '(unset)',
    range: 'openai-compatible:<model>',
    origin: 'project extension',
    description:
      'Dedicated rerank model of the cross-encoder policy, served at POST <base URL>/rerank (llama.cpp --rerank, vLLM).',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_RERANK_BASE_URL',
    default: 'the inference base URL',
    range: 'http(s) URL',
    origin: 'project extension',
    description:
      'Base URL of the rerank server, e.g. http://127.0.0.1:8080/v1; defaults to the shared base URL.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_RERANK_TIMEOUT_SECONDS',
    default: 'the generation timeout',
    range: '0.1..600',
    origin: 'project extension',
    description: 'Bound on one rerank-model call, retries included.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_RERANK_MAX_REQUESTS',
    default: 'the generation max requests',
    range: '1..10',
    origin: 'project extension',
    description: 'Total HTTP attempts per rerank-model call.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_BASE_URL',
    default: '(unset)',
    range: 'http(s) URL',
    origin: 'project extension',
    description:
      'Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp); required by openai-compatible models.',
  },
  {
    name: 'POWERCONTEXT_SERVER_INFERENCE_API_KEY',
    default: '(unset)',
    range: 'secret string',
    origin: 'project extension',
    description: 'API key for the inference provider. Never logged or printed.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED',
    default: 'false',
    range: 'true or false',
    origin: 'RFC 0080',
    description:
      'Assemble the listwise reranker from the generation model. An injected reranker applies regardless.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_CANDIDATE_LIMIT',
    default: '30',
    range: '1..100',
    origin: 'RFC 0080',
    description: 'Coarse fused pool c; the pool is max(limit, c) when a reranker is configured.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY',
    default: 'listwise',
    range: 'listwise, decision or cross-encoder',
    origin: 'project extension',
    description:
      'Which reranker the flag assembles; read only when reranking is enabled. Deviation from seed 001; cross-encoder needs the rerank model.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DECISION_CONCURRENCY',
    default: '1',
    range: '1..16',
    origin: 'project extension',
    description: 'Decision calls in flight per reranked search (results are still consumed in coarse order).',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE',
    default: '(unset: no minimum)',
    range: '-1000000..1000000',
    origin: 'project extension',
    description:
      'Cross-encoder policy: candidates scoring below it are not selected (the scale is the rerank model’s own).',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY',
    default: 'fail_closed',
    range: 'fail_closed or fail_open',
    origin: 'project extension',
    description:
      'fail_closed: rerank errors propagate (RFC 0080). fail_open: coarse ranks, with the degradation in the trace.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE',
    default: 'skip',
    range: 'skip or rerank',
    origin: 'project extension',
    description:
      'A search of several scopes (scope_ids): skip returns the scopes’ RRF fusion without the reranker (seed 003’s global queries), rerank runs the reranker on the fused pool. Explain says which.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MAX_IN_FLIGHT',
    default: '8',
    range: '1..256',
    origin: 'project extension',
    description: 'Concurrent reranks across all searches (the concurrency gate).',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_QUEUE_TIMEOUT_MS',
    default: '1000',
    range: '0..60000',
    origin: 'project extension',
    description: 'How long a search waits for a free rerank slot before it is saturated.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS',
    default: 'the rerank policy’s call bound',
    range: '1..3600000',
    origin: 'project extension',
    description:
      'Bound on the rerank stage of one search, queue wait included. Default: listwise, the generation bounds; cross-encoder, the rerank model’s; decision, the decision bounds x ceil(candidate limit / decision concurrency), one per step of its walk.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE',
    default: 'disabled',
    range: 'disabled, shadow or advisory',
    origin: 'project extension',
    description:
      'Advisory duplicate/contradiction check of new entries; shadow logs it, advisory also returns it. Never blocks a write.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_TIMEOUT_MS',
    default: '5000',
    range: '1..600000',
    origin: 'project extension',
    description: 'Fail-open timeout of each write-gate decision.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS',
    default: '3',
    range: '1..20',
    origin: 'project extension',
    description: 'Attempts of a write whose compare-and-swap lost to another process.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS',
    default: '86400',
    range: '60..2592000',
    origin: 'project extension',
    description:
      'How long an idempotency key of a write is kept per scope (24 h by default): a repeat within it returns the first result; expired keys are pruned lazily.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS',
    default: '0.35,0.175',
    range: 'none, or 1-8 comma-separated weights in (0, 1]',
    origin: 'project extension',
    description:
      'Neighbour context of the lexical index: weights of the entries at distance 1, 2, ... in the same source (RFC 0007). A change needs `pnpm memory:reindex`.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_VECTOR_WEIGHT',
    default: '0.1 with the local embedder, else 1',
    range: '0..1',
    origin: 'project extension',
    description:
      'Weight of the vector channel in Reciprocal Rank Fusion (the lexical channel counts 1). RFC 0080 counts both fully.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS',
    default: 'fts,vector',
    range: 'fts,vector plus any of entity, graph',
    origin: 'project extension',
    description:
      'The search channels fused (RFC 0013): full text and vectors always; entity adds the entities a query names (people, tickets, services, handles) matched by IDF; graph adds entries sharing a rare entity with those.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_ENTITY_WEIGHT',
    default: '1',
    range: '0..1',
    origin: 'project extension',
    description: 'Weight of the entity channel in Reciprocal Rank Fusion, when it runs.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT',
    default: '0.5',
    range: '0..1',
    origin: 'project extension',
    description:
      'Weight of the graph channel in Reciprocal Rank Fusion, when it runs: one hop from the query.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_FALLBACK',
    default: 'true',
    range: 'true or false',
    origin: 'project extension',
    description:
      'When no entry matches enough query terms for the lexical admission rule, return the entries matching fewer instead of nothing, and say so (RFC 0002). false keeps the strict rule.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_K1',
    default: '0.8',
    range: '0..10',
    origin: 'project extension',
    description: 'BM25 term-frequency saturation of the lexical channel.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_B',
    default: '0',
    range: '0..1',
    origin: 'project extension',
    description: 'BM25 length normalisation (0 = none; suits short chat turns).',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_DELTA',
    default: '0.5',
    range: '0..10',
    origin: 'project extension',
    description: 'BM25+ lower bound added to each matched term.',
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_PINNED_BOOST',
    default: '0',
    range: '0..10',
    origin: 'project extension',
    description:
      "Authority after fusion (RFC 0014): a pinned entry's fused score is multiplied by 1 + this boost. 0 (with no tag weight) leaves ranking and the retrieval policy id exactly as without the step.",
  },
  {
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_TAG_WEIGHTS',
    default: '(none)',
    range: 'tag=weight,... with up to 64 tags, weights 0..10',
    origin: 'project extension',
    description:
      "Authority after fusion (RFC 0014): an entry's fused score is multiplied by 1 + the largest weight among its tags (plus the pinned boost; the boost is at most 10). Tags match case-insensitively.",
  },
];
