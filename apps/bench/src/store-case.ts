import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import { type MemoryReranker, PowerContextError } from '@powercontext/memory-core';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import {
  REMEMBER_BATCH_SIZE,
  SEARCH_LIMIT,
  SEARCHES_PER_CLIENT,
  type StoreCaseSpec,
  WARMUP_QUERIES,
} from './case-spec.js';
import { runConcurrentClients } from './concurrent-clients.js';
import { benchTagsOf, measureFilteredSearches } from './filtered-searches.js';
import { type FloorEntry, type IngestFloor, openIngestFloor } from './ingest-floor.js';
import { createInstantReranker } from './instant-reranker.js';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf, megabytes, peakRssMb, perSecond, round } from './measure.js';
import {
  type BenchSearchMode,
  type ModeLatency,
  type RerankOverhead,
  SEARCH_MODES,
  type StoreResult,
  type Throughput,
} from './scale-report.js';
import { measureSearchFloor } from './search-floor.js';
import { measureSmallScopeWrites } from './small-scope-writes.js';
import { type CorpusEntry, type CorpusQuery, generateCorpus, generateQueries } from './synthetic-corpus.js';
import { createThrowawayDatabase } from './throwaway-database.js';
import { indexCounts, measureWritesBetweenSearches } from './writes-between-searches.js';

interface OpenedStore {
  /** The runtime's whole environment: the store, plus retrieval settings passed through; else defaults. */
  env: Record<string, string>;
  storageBytes(): Promise<number>;
  cleanup(): Promise<void>;
}

async function directoryBytes(directory: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(directory, { recursive: true })) {
    const info = await stat(path.join(directory, name));
    if (info.isFile()) total += info.size;
  }
  return total;
}

/** Turns per synthetic conversation (the position source of its entries). */
const TURNS_PER_CONVERSATION = 20;

/**
 * Retrieval settings of the benchmark's own environment (lexical context weights, BM25, RRF weights),
 * passed to the runtime so a run can measure e.g. POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS=none.
 */
function retrievalEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([name, value]) =>
      /^POWERCONTEXT_SERVER_RUNTIME_MEMORY_(LEXICAL_|BM25_|RRF_)/.test(name) && value ? [[name, value]] : [],
    ),
  );
}

/** A fresh store: PGlite in a new temporary data dir, or a throw-away PostgreSQL database. */
async function openStore(spec: StoreCaseSpec): Promise<OpenedStore> {
  if (spec.store === 'postgres') {
    const database = await createThrowawayDatabase(spec.databaseUrl);
    return {
      env: { ...retrievalEnv(), POWERCONTEXT_SERVER_DATABASE_URL: database.url },
      storageBytes: () => database.sizeBytes(),
      cleanup: () => database.drop(),
    };
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-bench-pglite-'));
  return {
    env: { ...retrievalEnv(), POWERCONTEXT_SERVER_DATA_DIR: dataDir },
    storageBytes: () => directoryBytes(dataDir),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

const scopeName = (scope: number) => `bench:scope-${scope}`;

interface Workload {
  spec: StoreCaseSpec;
  entries: CorpusEntry[];
  /** WARMUP_QUERIES warm-up queries, then spec.queries measured ones. */
  queries: CorpusQuery[];
  label: string;
}

/**
 * Remembers the corpus in batches of REMEMBER_BATCH_SIZE, timing the remember calls. With a floor,
 * each batch is then written to the floor too (ingest-floor.ts), so both see the same load.
 */
async function ingest(runtime: Runtime, work: Workload, floor?: IngestFloor): Promise<StoreResult['ingest']> {
  const { entries, spec } = work;
  const bar = createProgressBar(`${work.label} remember${floor ? ' + floor' : ''}`, entries.length);
  bar.update(0);
  const embedder = floor ? createLocalEmbedder() : undefined;
  let done = 0;
  let created = 0;
  let milliseconds = 0;
  const blocks: number[] = [];
  let blockStart = { created: 0, milliseconds: 0 };
  for (let scope = 0; scope < spec.scopes; scope++) {
    const memory = runtime.memory.forScope(scopeName(scope));
    const indexes: number[] = [];
    for (let index = scope; index < entries.length; index += spec.scopes) indexes.push(index);
    for (let start = 0; start < indexes.length; start += REMEMBER_BATCH_SIZE) {
      const batch: FloorEntry[] = indexes.slice(start, start + REMEMBER_BATCH_SIZE).map((index, offset) => ({
        text: entries[index]!.text,
        kind: 'turn',
        tags: benchTagsOf(start + offset),
        sources: [{ sourceId: 'synthetic-corpus', locator: `E${index}` }],
        // The scope's entries form conversations of TURNS_PER_CONVERSATION turns, in order, so the
        // lexical index carries neighbour context (RFC 0007) as a chat memory's would.
        position: {
          sourceId: `conversation-${Math.floor((start + offset) / TURNS_PER_CONVERSATION)}`,
          order: (start + offset) % TURNS_PER_CONVERSATION,
        },
      }));
      const started = performance.now();
      const result = await memory.remember({ entries: batch });
      milliseconds += performance.now() - started;
      created += result.entries.filter((item) => item.status === 'created').length;
      if (created - blockStart.created >= 10_000) {
        blocks.push(perSecond(created - blockStart.created, milliseconds - blockStart.milliseconds));
        blockStart = { created, milliseconds };
      }
      if (floor && embedder) {
        const vectors = await embedder.embed(batch.map((entry) => entry.text));
        await floor.write(scopeName(scope), batch, vectors);
      }
      done += batch.length;
      bar.update(done);
      await yieldToEventLoop();
    }
  }
  return {
    entries: entries.length,
    created,
    seconds: round(milliseconds / 1000, 3),
    entries_per_second: perSecond(created, milliseconds),
    batch_size: REMEMBER_BATCH_SIZE,
    ...(blocks.length > 1 ? { entries_per_second_by_10k: blocks } : {}),
  };
}

async function timedSearch(runtime: Runtime, query: CorpusQuery, mode: BenchSearchMode) {
  const started = performance.now();
  const result = await runtime.memory
    .forScope(scopeName(query.scope))
    .search({ query: query.text, mode, limit: SEARCH_LIMIT });
  const milliseconds = performance.now() - started;
  if (result.mode !== mode) throw new Error(`a ${mode} search answered in mode ${result.mode}`);
  return { result, milliseconds };
}

/** One client, one query at a time: warm-up, then the measured queries. */
async function sequentialLatency(runtime: Runtime, work: Workload, mode: BenchSearchMode) {
  const bar = createProgressBar(`${work.label} ${mode} search`, work.queries.length);
  bar.update(0);
  const samples: number[] = [];
  let hits = 0;
  for (const [index, query] of work.queries.entries()) {
    const { result, milliseconds } = await timedSearch(runtime, query, mode);
    if (index >= WARMUP_QUERIES) {
      samples.push(milliseconds);
      hits += result.hits.length;
    }
    bar.update(index + 1);
    await yieldToEventLoop();
  }
  return { ...latencyOf(samples), mean_hits: round(hits / samples.length, 3) } satisfies ModeLatency;
}

/** One write per this many tasks in the throughput runs with writes (issue 28: agents write while they search). */
const WRITE_EVERY = 20;

/**
 * A task the server would answer 503 database_unavailable: the store did not answer (a connection not
 * free within the pool's wait, a statement past its bound). Counted, not fatal, so a throughput run
 * prints how many it met (issue 28: a cold start under 32 clients answered some).
 */
const isStoreUnavailable = (error: unknown) =>
  PowerContextError.isInstance(error) && error.code === 'store_unavailable';

/**
 * `clients` concurrent clients over the measured queries (cycled), max(queries, 20 x clients) searches.
 * With `writeEvery`, every `writeEvery`-th task remembers one new entry in the scope of the query it
 * would have asked instead, so the searches meet new revisions as an agent's do; searches/s and the
 * latencies count the searches only. A search or write the store could not answer counts in
 * `unavailable` (and not in `searches`); any other failure ends the run. Also recorded: the channel
 * answers the indexes in memory gave during the run, and the CPU time of this process (the runtime and
 * the clients; PostgreSQL's own processes are not in it) over the run's wall time, in cores.
 */
async function throughput(
  runtime: Runtime,
  work: Workload,
  mode: BenchSearchMode,
  clients: number,
  writeEvery?: number,
): Promise<Throughput> {
  const measured = work.queries.slice(WARMUP_QUERIES);
  const total = Math.max(measured.length, SEARCHES_PER_CLIENT * clients);
  const tasks = writeEvery ? total + Math.floor(total / (writeEvery - 1)) : total;
  const samples: number[] = [];
  let writes = 0;
  let unavailable = 0;
  const before = await indexCounts(runtime);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await runConcurrentClients(clients, tasks, async (index) => {
    const query = measured[index % measured.length]!;
    try {
      if (writeEvery && index % writeEvery === writeEvery - 1) {
        await runtime.memory.forScope(scopeName(query.scope)).remember({
          entries: [{ text: `${query.text} (written between searches, ${index})`, kind: 'turn' }],
        });
        writes += 1;
      } else {
        const { milliseconds } = await timedSearch(runtime, query, mode);
        samples.push(milliseconds);
      }
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      unavailable += 1;
    }
    await yieldToEventLoop();
  });
  const milliseconds = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const after = await indexCounts(runtime);
  const latency = latencyOf(samples);
  return {
    mode,
    clients,
    searches: samples.length,
    ...(writeEvery ? { writes_every: writeEvery, writes } : {}),
    unavailable,
    lexical_from_memory: after.lexical - before.lexical,
    vector_from_memory: after.vector - before.vector,
    client_cpu_share: round((cpu.user + cpu.system) / 1000 / milliseconds, 2),
    seconds: round(milliseconds / 1000, 3),
    searches_per_second: perSecond(samples.length, milliseconds),
    p50_ms: latency.p50_ms,
    p95_ms: latency.p95_ms,
  };
}

/** Hybrid searches through a runtime with the instant reranker injected, over the same store. */
async function rerankOverhead(
  env: Record<string, string>,
  work: Workload,
  withoutReranker: ModeLatency,
): Promise<RerankOverhead> {
  const reranker: MemoryReranker = createInstantReranker();
  const runtime = await createRuntime({ env, reranker });
  try {
    const candidateLimit = runtime.capabilities().rerank?.candidateLimit;
    if (candidateLimit === undefined) throw new Error('the injected reranker is not active');
    const bar = createProgressBar(`${work.label} hybrid + instant reranker`, work.queries.length);
    bar.update(0);
    const total: number[] = [];
    const coarse: number[] = [];
    const stage: number[] = [];
    for (const [index, query] of work.queries.entries()) {
      const { result, milliseconds } = await timedSearch(runtime, query, 'hybrid');
      if (index >= WARMUP_QUERIES) {
        total.push(milliseconds);
        // A search whose pool is empty skips the stage and has no trace.
        if (result.trace) {
          coarse.push(result.trace.latencies.coarseMs);
          stage.push(result.trace.latencies.rerankMs);
        }
      }
      bar.update(index + 1);
      await yieldToEventLoop();
    }
    if (stage.length === 0) throw new Error('no search reached the rerank stage');
    const { mean_hits: _hits, ...without } = withoutReranker;
    return {
      mode: 'hybrid',
      candidate_limit: Math.max(SEARCH_LIMIT, candidateLimit),
      without_reranker: without,
      with_instant_reranker: latencyOf(total),
      coarse_ms: latencyOf(coarse),
      stage_ms: latencyOf(stage),
    };
  } finally {
    await runtime.close();
  }
}

/**
 * Writes between searches in the first scope (issue 28): its own queries (a second draw, so there are
 * enough of them whatever the scope count) and new entries the corpus does not hold.
 */
function writesBetweenSearchesOf(runtime: Runtime, work: Workload) {
  const fresh = generateCorpus({ seed: work.spec.seed + 2, entries: 200, scopes: 1 });
  return measureWritesBetweenSearches(runtime, scopeName(0), firstScopeQueries(work), fresh, work.label);
}

/**
 * About WARMUP_QUERIES + 60 queries of the first scope, a second draw: the workload's own queries are
 * spread over every scope, so with 10 scopes and 100 queries the first one holds fewer than the warm-up.
 */
function firstScopeQueries(work: Workload): CorpusQuery[] {
  const { spec, entries } = work;
  return generateQueries(
    { seed: spec.seed + 1, count: (WARMUP_QUERIES + 60) * spec.scopes, scopes: spec.scopes },
    entries,
  ).filter((query) => query.scope === 0);
}

export interface StoreCaseOutcome {
  result: StoreResult;
  embeddingProfile: string;
  retrievalPolicy: string;
}

/** Ingests the corpus into a fresh store and measures search, throughput and the rerank stage. */
export async function runStoreCase(spec: StoreCaseSpec): Promise<StoreCaseOutcome> {
  const entries = generateCorpus({ seed: spec.seed, entries: spec.entries, scopes: spec.scopes });
  const queries = generateQueries(
    { seed: spec.seed, count: WARMUP_QUERIES + spec.queries, scopes: spec.scopes },
    entries,
  );
  const work: Workload = { spec, entries, queries, label: `${spec.store} ${spec.entries}` };
  const store = await openStore(spec);
  try {
    const runtime = await createRuntime({ env: store.env });
    let outcome: Omit<StoreCaseOutcome, 'result'>;
    let measured: Pick<
      StoreResult,
      | 'ingest'
      | 'search'
      | 'throughput'
      | 'search_floor'
      | 'writes_between_searches'
      | 'filtered_searches'
      | 'small_scope_writes'
    >;
    let ingestFloor: StoreResult['ingest_floor'];
    try {
      const capabilities = runtime.capabilities();
      if (capabilities.store !== spec.store)
        throw new Error(`opened ${capabilities.store}, not ${spec.store}`);
      outcome = {
        embeddingProfile: capabilities.embeddingProfile.id,
        retrievalPolicy: capabilities.retrievalPolicyId,
      };
      const floor = spec.ingestFloor
        ? await openIngestFloor(spec.store, spec.databaseUrl, retrievalEnv())
        : undefined;
      let ingested: StoreResult['ingest'];
      try {
        ingested = await ingest(runtime, work, floor);
        if (floor) ingestFloor = floor.result(ingested.entries_per_second);
      } finally {
        await floor?.close();
      }
      // Right after the import, before the searches: what the largest scope's indexes cost a writer
      // elsewhere (with one scope, it holds the whole corpus).
      const smallScopeWrites = await measureSmallScopeWrites(
        runtime,
        'bench:small-scope',
        Math.ceil(spec.entries / spec.scopes),
        generateCorpus({ seed: spec.seed + 3, entries: 100, scopes: 1 }),
      );
      const search = {} as StoreResult['search'];
      for (const mode of SEARCH_MODES) search[mode] = await sequentialLatency(runtime, work, mode);
      const filteredSearches = await measureFilteredSearches(
        runtime,
        scopeName(0),
        firstScopeQueries(work),
        work.label,
      );
      for (const row of filteredSearches.rows) {
        console.log(
          `${work.label} filtered hybrid (${row.filter}, keeps ${row.kept_share * 100}%): p50 ${row.p50_ms} ms vs unfiltered ${filteredSearches.unfiltered_p50_ms} ms = ${row.ratio_p50}x, ${row.mean_hits} hits per search`,
        );
      }
      const writesBetweenSearches = await writesBetweenSearchesOf(runtime, work);
      const databaseUrl = store.env.POWERCONTEXT_SERVER_DATABASE_URL;
      const searchFloor = databaseUrl
        ? await measureSearchFloor(runtime, databaseUrl, work.queries, SEARCH_MODES, work.label)
        : undefined;
      const runs: Throughput[] = [];
      const bar = createProgressBar(
        `${work.label} throughput`,
        (SEARCH_MODES.length + 1) * spec.concurrency.length,
      );
      bar.update(0);
      for (const mode of SEARCH_MODES) {
        for (const clients of spec.concurrency) {
          runs.push(await throughput(runtime, work, mode, clients));
          bar.update(runs.length);
        }
      }
      for (const clients of spec.concurrency) {
        runs.push(await throughput(runtime, work, 'hybrid', clients, WRITE_EVERY));
        bar.update(runs.length);
      }
      measured = {
        ingest: ingested,
        search,
        throughput: runs,
        ...(searchFloor ? { search_floor: searchFloor } : {}),
        writes_between_searches: writesBetweenSearches,
        filtered_searches: filteredSearches,
        small_scope_writes: smallScopeWrites,
      };
    } finally {
      await runtime.close();
    }
    const overhead = spec.rerank ? await rerankOverhead(store.env, work, measured.search.hybrid) : undefined;
    const storageBytes = await store.storageBytes();
    const result: StoreResult = {
      store: spec.store,
      measured: true,
      ...measured,
      ...(ingestFloor ? { ingest_floor: ingestFloor } : {}),
      ...(overhead ? { rerank_overhead: overhead } : {}),
      peak_rss_mb: peakRssMb(),
      storage_mb: megabytes(storageBytes),
      bytes_per_entry: round(storageBytes / spec.entries, 0),
      note:
        spec.store === 'postgres'
          ? 'peak RSS is the benchmark process only (runtime, pg pool); the PostgreSQL server runs in processes of its own'
          : 'peak RSS includes the embedded database (PGlite runs in this process)',
    };
    return { result, ...outcome };
  } finally {
    await store.cleanup();
  }
}
