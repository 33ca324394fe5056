import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { REMEMBER_BATCH_SIZE, SEARCH_LIMIT, WARMUP_QUERIES } from './case-spec.js';
import { latencyOf, round } from './measure.js';
import { defaultDatabaseUrl, STORES, type StoreKind } from './scale-args.js';
import { type CorpusEntry, generateCorpus, generateQueries } from './synthetic-corpus.js';
import { createThrowawayDatabase } from './throwaway-database.js';

/**
 * Issue 29, "Several scopes": a search over 4 scopes of 2,500 entries each against a search of one
 * scope of the same 10,000 entries, on one store (both corpora in it, so both searches see the same
 * caches and indexes), query by query interleaved. Target: multi-scope p50 at most 2x the one-scope p50.
 * Mode auto (hybrid: the vector indexes are complete), limit 10, no reranker, the default local embedder.
 *
 *   node apps/bench/dist/scopes-bench.js [--store pglite|postgres] [--queries N]
 */
const ENTRIES = 10_000;
const PARTS = 4;
const SEED = 29;
const ONE = 'bench:one';
const part = (index: number) => `bench:part-${index}`;

interface Row {
  store: StoreKind;
  one: ReturnType<typeof latencyOf>;
  several: ReturnType<typeof latencyOf>;
  ratio: number;
}

async function remember(runtime: Runtime, scopeId: string, entries: readonly CorpusEntry[]): Promise<void> {
  const memory = runtime.memory.forScope(scopeId);
  for (let start = 0; start < entries.length; start += REMEMBER_BATCH_SIZE) {
    await memory.remember({
      entries: entries.slice(start, start + REMEMBER_BATCH_SIZE).map(({ text }) => ({ text })),
    });
  }
}

async function runStore(store: StoreKind, queryCount: number): Promise<Row> {
  const opened =
    store === 'postgres'
      ? await (async () => {
          const database = await createThrowawayDatabase(defaultDatabaseUrl());
          return { env: { POWERCONTEXT_SERVER_DATABASE_URL: database.url }, cleanup: () => database.drop() };
        })()
      : await (async () => {
          const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-bench-scopes-'));
          return {
            env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir },
            cleanup: () => rm(dataDir, { recursive: true, force: true }),
          };
        })();
  try {
    const runtime = await createRuntime({ env: opened.env });
    try {
      const entries = generateCorpus({ seed: SEED, entries: ENTRIES, scopes: PARTS });
      const began = performance.now();
      await remember(runtime, ONE, entries);
      for (let index = 0; index < PARTS; index += 1) {
        await remember(
          runtime,
          part(index),
          entries.filter((entry) => entry.scope === index),
        );
      }
      process.stderr.write(
        `${store}: wrote 2 x ${ENTRIES} entries in ${round((performance.now() - began) / 1000, 1)} s\n`,
      );
      const queries = generateQueries(
        { seed: SEED, count: WARMUP_QUERIES + queryCount, scopes: PARTS },
        entries,
      );
      const parts = Array.from({ length: PARTS }, (_, index) => part(index));
      const one: number[] = [];
      const several: number[] = [];
      for (const [index, query] of queries.entries()) {
        const request = { query: query.text, limit: SEARCH_LIMIT };
        let start = performance.now();
        const single = await runtime.memory.forScope(ONE).search(request);
        const oneMs = performance.now() - start;
        start = performance.now();
        const fused = await runtime.memory.search(parts, request);
        const severalMs = performance.now() - start;
        if (single.mode !== 'hybrid' || fused.mode !== 'hybrid') throw new Error('expected hybrid searches');
        if (index < WARMUP_QUERIES) continue;
        one.push(oneMs);
        several.push(severalMs);
      }
      const [oneLatency, severalLatency] = [latencyOf(one), latencyOf(several)];
      return {
        store,
        one: oneLatency,
        several: severalLatency,
        ratio: round(severalLatency.p50_ms / oneLatency.p50_ms, 2),
      };
    } finally {
      await runtime.close();
    }
  } finally {
    await opened.cleanup();
  }
}

function argsOf(argv: readonly string[]): { stores: StoreKind[]; queries: number } {
  let stores: StoreKind[] = [...STORES];
  let queries = 200;
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--store' && (STORES as readonly string[]).includes(value ?? ''))
      stores = [value as StoreKind];
    else if (flag === '--queries' && Number.isSafeInteger(Number(value)) && Number(value) > 0)
      queries = Number(value);
    else throw new Error(`usage: scopes-bench [--store ${STORES.join('|')}] [--queries N] (got ${flag})`);
    index += 1;
  }
  return { stores, queries };
}

const { stores, queries } = argsOf(process.argv.slice(2));
const rows: Row[] = [];
for (const store of stores) rows.push(await runStore(store, queries));
console.log(
  `Several scopes (issue 29): ${queries} queries, mode auto (hybrid), limit ${SEARCH_LIMIT}, target ratio <= 2`,
);
console.log('| store | 1 scope x 10,000 p50 / p95 ms | 4 scopes x 2,500 p50 / p95 ms | p50 ratio |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) {
  console.log(
    `| ${row.store} | ${round(row.one.p50_ms, 2)} / ${round(row.one.p95_ms, 2)} | ${round(row.several.p50_ms, 2)} / ${round(row.several.p95_ms, 2)} | ${row.ratio}x |`,
  );
}
