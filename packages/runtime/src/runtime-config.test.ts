import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_TABLE } from './configuration-table.js';
import { loadRuntimeConfig } from './runtime-config.js';

describe('loadRuntimeConfig', () => {
  it('defaults to the embedded store and the local embedder', () => {
    expect(loadRuntimeConfig({})).toEqual({
      store: { kind: 'pglite', dataDir: './.powercontext/data' },
      reads: { minRevisionWaitMs: 2000, minRevisionFallback: 'wait' },
      textSearchConfig: 'english',
      indexMemoryMb: 288,
      embedding: { kind: 'local' },
      inference: {},
      generation: { timeoutSeconds: 30, maxRequests: 2 },
      decision: { timeoutSeconds: 30, maxRequests: 2 },
      rerank: {
        enabled: false,
        policy: undefined,
        decisionConcurrency: 1,
        candidateLimit: 30,
        failurePolicy: 'fail_closed',
        multiScope: 'skip',
        maxInFlight: 8,
        queueTimeoutMs: 1000,
        deadlineMs: 60_000,
      },
      writeGate: { mode: 'disabled', timeoutMs: 5000 },
      writeMaxAttempts: 3,
      idempotencyRetentionSeconds: 86_400,
      retrieval: {
        bm25: { k1: 0.8, b: 0, delta: 0.5 },
        contextWeights: [0.35, 0.175],
        channels: ['fts', 'vector'],
        channelWeights: { fts: 1, vector: 0.1, entity: 1, graph: 0.5 },
        lexicalFallback: true,
        authority: { pinnedBoost: 0, tagWeights: {} },
      },
    });
  });

  it('reads a database URL and a model embedder, keeping secrets unprintable', () => {
    const config = loadRuntimeConfig({
      POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://user:pw@db:5432/memory',
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: 'openai-compatible:nomic-embed-text',
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION: '768',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:11434/v1',
      POWERCONTEXT_SERVER_INFERENCE_API_KEY: 'sk-very-secret',
    });
    expect(config.store.kind).toBe('postgres');
    expect(config.embedding).toMatchObject({ kind: 'model', dimension: 768, minCosine: 0.3, maxRequests: 2 });
    const printed = `${JSON.stringify(config)} ${inspect(config, { depth: 5 })} ${String(config.inference.apiKey)}`;
    expect(printed).not.toContain('sk-very-secret');
    expect(printed).not.toContain(':pw@');
    expect(config.inference.apiKey?.reveal()).toBe('sk-very-secret');
  });

  it.each([
    ['POWERCONTEXT_SERVER_DATABASE_URL', 'mysql://x', 'must be a postgres:// or postgresql:// URL'],
    [
      'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL',
      'cohere:embed',
      'must be openai:<model> or openai-compatible:<model>',
    ],
    ['POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS', '0', 'must be at least 1'],
    ['POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS', 'yes', 'must be an integer'],
    [
      'POWERCONTEXT_SERVER_STORE_TEXT_SEARCH_CONFIG',
      'English; DROP',
      'must be a text search configuration name like english',
    ],
  ])('refuses %s=%s naming the setting and the rule', (name, value, rule) => {
    expect(() => loadRuntimeConfig({ [name]: value })).toThrow(
      expect.objectContaining({ code: 'configuration_error', setting: name, message: `${name}: ${rule}` }),
    );
  });

  it('reads the search channels (RFC 0013): fts and vector always, entity and graph when named', () => {
    const channels = (value: string) =>
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS: value }).retrieval.channels;
    expect(loadRuntimeConfig({}).retrieval.channels).toEqual(['fts', 'vector']);
    expect(channels('fts,vector,entity')).toEqual(['fts', 'vector', 'entity']);
    // Fusion order is fixed, whatever order the setting lists them in.
    expect(channels(' graph, vector,fts ,entity')).toEqual(['fts', 'vector', 'entity', 'graph']);
    for (const bad of [
      'fts',
      'vector,entity',
      'fts,vector,entity,entity',
      'fts,vector,recency',
      'fts,,vector',
    ]) {
      expect(() => channels(bad), bad).toThrow(
        expect.objectContaining({
          setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS',
          message:
            'POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS: must be fts,vector plus any of entity and graph, comma-separated, each once',
        }),
      );
    }
    expect(
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_ENTITY_WEIGHT: '0.7',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT: '0.2',
      }).retrieval.channelWeights,
    ).toEqual({ fts: 1, vector: 0.1, entity: 0.7, graph: 0.2 });
    expect(() => loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT: '2' })).toThrow(
      expect.objectContaining({ setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_GRAPH_WEIGHT' }),
    );
  });

  it('reads the lexical context weights and BM25 parameters of the retrieval policy', () => {
    expect(
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: '0.5,0.25,0.1',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_B: '0.75',
      }).retrieval,
    ).toEqual({
      bm25: { k1: 0.8, b: 0.75, delta: 0.5 },
      contextWeights: [0.5, 0.25, 0.1],
      channels: ['fts', 'vector'],
      channelWeights: { fts: 1, vector: 0.1, entity: 1, graph: 0.5 },
      lexicalFallback: true,
      authority: { pinnedBoost: 0, tagWeights: {} },
    });
    expect(
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_FALLBACK: 'false' }).retrieval
        .lexicalFallback,
    ).toBe(false);
    // A model embedder's channel counts fully unless set.
    const withModel = {
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: 'openai:text-embedding-3-small',
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION: '1536',
    };
    expect(loadRuntimeConfig(withModel).retrieval.channelWeights).toMatchObject({ fts: 1, vector: 1 });
    expect(
      loadRuntimeConfig({ ...withModel, POWERCONTEXT_SERVER_RUNTIME_MEMORY_RRF_VECTOR_WEIGHT: '0.5' })
        .retrieval.channelWeights,
    ).toMatchObject({ fts: 1, vector: 0.5 });
    expect(
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: 'none' }).retrieval
        .contextWeights,
    ).toEqual([]);
    for (const bad of ['0', '1.5', '0.3,', '-0.2', 'a,b', '0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1']) {
      expect(() =>
        loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: bad }),
      ).toThrow(
        expect.objectContaining({ setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS' }),
      );
    }
  });

  it('defaults the decision backend to the generation model and its bounds', () => {
    const config = loadRuntimeConfig({
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: 'openai:gpt-4o-mini',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '12',
      POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS: '3',
    });
    expect(config.decision).toEqual({ model: 'openai:gpt-4o-mini', timeoutSeconds: 12, maxRequests: 3 });
  });

  it('derives the rerank deadline from the generation bound unless set', () => {
    const config = loadRuntimeConfig({
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '2.5',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '3',
    });
    expect(config.rerank.deadlineMs).toBe(7_500);
    expect(
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: '900' }).rerank.deadlineMs,
    ).toBe(900);
  });

  it('gives the decision policy a deadline for its whole walk, from the decision bounds (seed 001, S1)', () => {
    // On 6a3d005: generation timeout x max requests (here 0.5 s x 2 = 1 s), so a healthy backend at
    // 150 ms a call failed with rerank_deadline after a few of the walk's up to 30 calls.
    const decision = {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'decision',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '0.5',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '2',
      POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS: '0.5',
      POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS: '1',
    };
    expect(loadRuntimeConfig(decision).rerank.deadlineMs).toBe(15_000); // 0.5 s x 1 x 30 steps
    expect(
      loadRuntimeConfig({ ...decision, POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DECISION_CONCURRENCY: '4' })
        .rerank.deadlineMs,
    ).toBe(4_000); // 8 steps of 4 calls
    expect(
      loadRuntimeConfig({ ...decision, POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'listwise' }).rerank
        .deadlineMs,
    ).toBe(1_000);
  });

  it('requires a dimension with a model and a base URL with openai-compatible models', () => {
    expect(() =>
      loadRuntimeConfig({ POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: 'openai:text-embedding-3-small' }),
    ).toThrow(expect.objectContaining({ setting: 'POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION' }));
    expect(() =>
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: 'openai-compatible:bge',
        POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION: '384',
      }),
    ).toThrow(expect.objectContaining({ setting: 'POWERCONTEXT_SERVER_INFERENCE_BASE_URL' }));
  });

  it('reads exactly the names of the configuration table', () => {
    const names = CONFIGURATION_TABLE.map((row) => row.name);
    for (const name of names) expect(name).toMatch(/^POWERCONTEXT_SERVER_/);
    // Every table name is accepted as known: an invalid value for it is reported under that name.
    for (const name of names.filter(
      (n) => n !== 'POWERCONTEXT_SERVER_DATA_DIR' && n !== 'POWERCONTEXT_SERVER_INFERENCE_API_KEY',
    )) {
      expect(() => loadRuntimeConfig({ [name]: '\u0000not valid\u0000' })).toThrow(
        expect.objectContaining({ setting: name }),
      );
    }
  });

  it('reads replicas, the min_revision fallback and the database bounds, and refuses bad ones', () => {
    const config = loadRuntimeConfig({
      POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://user:pw@primary:5432/memory',
      POWERCONTEXT_SERVER_READ_DATABASE_URL: 'postgres://user:pw@r1:5432/memory, postgresql://r2/memory',
      POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK: 'error',
      POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS: '500',
      POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS: '3000',
    });
    if (config.store.kind !== 'postgres') throw new Error('expected postgres');
    expect(config.store.readConnectionStrings.map((url) => url.reveal())).toEqual([
      'postgres://user:pw@r1:5432/memory',
      'postgresql://r2/memory',
    ]);
    expect(config.store.statementTimeoutMs).toBe(3000);
    expect(config.store.lockTimeoutMs).toBeUndefined();
    expect(config.reads).toEqual({ minRevisionWaitMs: 500, minRevisionFallback: 'error' });
    expect(() =>
      loadRuntimeConfig({ POWERCONTEXT_SERVER_READ_DATABASE_URL: 'postgres://r1/memory' }),
    ).toThrow(/POWERCONTEXT_SERVER_READ_DATABASE_URL: needs POWERCONTEXT_SERVER_DATABASE_URL/u);
    expect(() =>
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://primary/memory',
        POWERCONTEXT_SERVER_READ_DATABASE_URL: 'postgres://r1/memory,mysql://r2',
      }),
    ).toThrow(/POWERCONTEXT_SERVER_READ_DATABASE_URL: must be one or more comma-separated/u);
    expect(() => loadRuntimeConfig({ POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK: 'never' })).toThrow(
      /must be wait, primary or error/u,
    );
  });

  it('reads the distribution of the tables (none, or citus on a PostgreSQL URL without replicas)', () => {
    const plain = loadRuntimeConfig({ POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://primary/memory' });
    expect(plain.store).toMatchObject({ kind: 'postgres', distribution: 'none' });
    const citus = loadRuntimeConfig({
      POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://coordinator/memory',
      POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'citus',
    });
    expect(citus.store).toMatchObject({ kind: 'postgres', distribution: 'citus' });
    expect(() => loadRuntimeConfig({ POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'citus' })).toThrow(
      /POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: citus needs POWERCONTEXT_SERVER_DATABASE_URL/u,
    );
    expect(() =>
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://coordinator/memory',
        POWERCONTEXT_SERVER_READ_DATABASE_URL: 'postgres://r1/memory',
        POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'citus',
      }),
    ).toThrow(/POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: citus cannot be combined with/u);
    expect(() =>
      loadRuntimeConfig({
        POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://coordinator/memory',
        POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'sharded',
      }),
    ).toThrow(/POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: must be none or citus/u);
  });

  it('reads the memory of the indexes held in memory, 0 turning them off, and refuses bad values', () => {
    expect(loadRuntimeConfig({ POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: '0' }).indexMemoryMb).toBe(0);
    expect(loadRuntimeConfig({ POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: '1024' }).indexMemoryMb).toBe(1024);
    expect(() => loadRuntimeConfig({ POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: '-1' })).toThrow(
      /POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB/u,
    );
    expect(() => loadRuntimeConfig({ POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: '1.5' })).toThrow(
      /POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: must be an integer/u,
    );
  });
});
