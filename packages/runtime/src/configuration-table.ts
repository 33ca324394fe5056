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
    name: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL',
    default: '(unset: local hash embedder)',
    range: 'openai:<model> | openai-compatible:<model>',
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
    name: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS',
    default: '3',
    range: '1..20',
    origin: 'project extension',
    description: 'Attempts of a write whose compare-and-swap lost to another process.',
  },
];
