import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createProgressBar, parseCommandLine, summarizeLatencies } from '@powercontext/cli-support';
import type { Runtime } from '@powercontext/runtime';
import { type Backend, parseArgs, USAGE } from './args.js';
import { describeError, type OpenedRuntime, openRuntime } from './open-runtime.js';
import {
  type BackendResult,
  type BenchMode,
  markdownTable,
  SEARCH_MODES,
  type SearchBenchReport,
} from './report.js';
import { type CorpusEntry, type CorpusQuery, generateCorpus, generateQueries } from './synthetic-corpus.js';

const WARMUP_QUERIES = 20;
const SEARCH_LIMIT = 10;
const BATCH_SIZE = 500;

interface Workload {
  entries: CorpusEntry[];
  queries: CorpusQuery[];
  /** Fresh per run, so reruns against the same PostgreSQL database never share a scope. */
  scopeNames: string[];
}

async function ingest(runtime: Runtime, backend: Backend, work: Workload) {
  const bar = createProgressBar(`${backend} remember`, work.entries.length);
  let done = 0;
  let created = 0;
  bar.update(0);
  const started = performance.now();
  for (const [scope, scopeName] of work.scopeNames.entries()) {
    const memory = runtime.memory.forScope(scopeName);
    const ofScope = work.entries.flatMap((entry, index) => (entry.scope === scope ? [{ entry, index }] : []));
    for (let start = 0; start < ofScope.length; start += BATCH_SIZE) {
      const batch = ofScope.slice(start, start + BATCH_SIZE);
      const result = await memory.remember({
        entries: batch.map(({ entry, index }) => ({
          text: entry.text,
          kind: 'turn',
          sources: [{ sourceId: 'synthetic-corpus', locator: `E${index}` }],
        })),
      });
      created += result.entries.filter((item) => item.status === 'created').length;
      done += batch.length;
      bar.update(done);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  if (created !== work.entries.length) {
    console.warn(`${backend}: ${work.entries.length - created} entries were duplicates and not created`);
  }
  return { entries: created, seconds: round(seconds, 3), entries_per_second: round(created / seconds, 1) };
}

async function searchMode(runtime: Runtime, backend: Backend, mode: BenchMode, work: Workload) {
  const bar = createProgressBar(`${backend} ${mode}`, work.queries.length);
  const latencies: number[] = [];
  let hits = 0;
  bar.update(0);
  for (const [index, query] of work.queries.entries()) {
    const memory = runtime.memory.forScope(work.scopeNames[query.scope]!);
    const started = performance.now();
    const result = await memory.search({ query: query.text, mode, limit: SEARCH_LIMIT });
    const elapsed = performance.now() - started;
    if (result.mode !== mode) throw new Error(`${mode} search answered in mode ${result.mode}`);
    if (index >= WARMUP_QUERIES) {
      latencies.push(elapsed);
      hits += result.hits.length;
    }
    bar.update(index + 1);
  }
  return { ...summarizeLatencies(latencies), mean_hits: round(hits / latencies.length, 3) };
}

async function runBackend(backend: Backend, work: Workload, opened: OpenedRuntime): Promise<BackendResult> {
  const { runtime } = opened;
  const ingestResult = await ingest(runtime, backend, work);
  const search = {} as BackendResult['search'];
  for (const mode of SEARCH_MODES) search[mode] = await searchMode(runtime, backend, mode, work);
  const peakRssMb = round(process.resourceUsage().maxRSS / 1024, 1);
  return { backend, ingest: ingestResult, search, peak_rss_mb: peakRssMb };
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<number> {
  const args = parseCommandLine(parseArgs, USAGE);
  if (typeof args === 'number') return args;
  const runStarted = performance.now();
  const entries = generateCorpus({ seed: args.seed, entries: args.entries, scopes: args.scopes });
  const queries = generateQueries(
    { seed: args.seed, count: WARMUP_QUERIES + args.queries, scopes: args.scopes },
    entries,
  );
  const runId = randomBytes(4).toString('hex');
  const scopeNames = Array.from({ length: args.scopes }, (_, index) => `bench:${runId}:scope-${index}`);
  const work: Workload = { entries, queries, scopeNames };
  console.log(
    `search benchmark run ${runId}: ${args.entries} entries, ${args.scopes} scopes, backends ${args.backends.join(', ')}`,
  );

  const fail = (backend: Backend, error: unknown) => {
    console.error(`\n${backend} backend failed: ${describeError(error)}`);
    console.error(`No results written to ${args.out}.`);
    return 1;
  };
  if (args.backends.includes('postgres') && args.backends[0] !== 'postgres') {
    // Fail fast: do not spend minutes on other backends when PostgreSQL is unreachable.
    try {
      await (await openRuntime('postgres', args)).cleanup();
    } catch (error) {
      return fail('postgres', error);
    }
  }

  const results: BackendResult[] = [];
  let identity: { embedder: string; policy: string } | undefined;
  for (const backend of args.backends) {
    let opened: OpenedRuntime | undefined;
    try {
      opened = await openRuntime(backend, args);
      const capabilities = opened.runtime.capabilities();
      identity ??= { embedder: capabilities.embeddingProfile.id, policy: capabilities.retrievalPolicyId };
      results.push(await runBackend(backend, work, opened));
    } catch (error) {
      return fail(backend, error);
    } finally {
      await opened
        ?.cleanup()
        .catch((error: unknown) => console.error(`closing ${backend}: ${describeError(error)}`));
    }
  }

  const report: SearchBenchReport = {
    benchmark: 'search',
    generated_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    config: {
      entries: args.entries,
      scopes: args.scopes,
      queries: args.queries,
      seed: args.seed,
      embedder_profile_id: identity!.embedder,
      retrieval_policy_id: identity!.policy,
      warmup_queries: WARMUP_QUERIES,
      limit: SEARCH_LIMIT,
      batch_size: BATCH_SIZE,
    },
    results,
  };
  await mkdir(path.dirname(path.resolve(args.out)), { recursive: true });
  await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${markdownTable(report)}\n`);
  console.log(`Wrote ${args.out}; run time ${((performance.now() - runStarted) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = await main();
