import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseCommandLine } from '@powercontext/cli-support';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import { PEER_SYSTEMS } from '@powercontext/search-peers';
import { runCaseInChild } from './case-runner.js';
import {
  type CaseSpec,
  EMBEDDER_SAMPLE,
  REMEMBER_BATCH_SIZE,
  SEARCH_LIMIT,
  WARMUP_QUERIES,
} from './case-spec.js';
import { corpusStats } from './corpus-stats.js';
import { describeError } from './describe-error.js';
import { perSecond, round } from './measure.js';
import { parseScaleArgs, SCALE_USAGE, type ScaleArgs } from './scale-args.js';
import { scaleMarkdown } from './scale-markdown.js';
import { type ScaleReport, type SizeResult, validateScaleReport } from './scale-report.js';
import { generateCorpus } from './synthetic-corpus.js';
import { createThrowawayDatabase } from './throwaway-database.js';

const NOT_MEASURED = 'not measured';

const loadAverage = () => os.loadavg().map((value) => round(value, 2));

/** The local embedder alone over up to EMBEDDER_SAMPLE texts: what embedding costs of an ingest. */
async function embedderCost(texts: readonly string[]): Promise<SizeResult['embedder']> {
  const sample = texts.slice(0, EMBEDDER_SAMPLE);
  const embedder = createLocalEmbedder();
  const started = performance.now();
  await embedder.embed(sample);
  const milliseconds = performance.now() - started;
  return {
    entries: sample.length,
    seconds: round(milliseconds / 1000, 3),
    entries_per_second: perSecond(sample.length, milliseconds),
  };
}

async function runSize(args: ScaleArgs, entries: number, identity: { retrievalPolicy?: string }) {
  const corpus = generateCorpus({ seed: args.seed, entries, scopes: args.scopes });
  const texts = corpus.map((entry) => entry.text);
  const size: SizeResult = {
    entries,
    scopes: args.scopes,
    corpus: corpusStats(texts),
    embedder: await embedderCost(texts),
    stores: [],
    peers: [],
  };
  const common = { entries, scopes: args.scopes, seed: args.seed, queries: args.queries };
  for (const store of args.stores) {
    console.log(`\n${entries} entries, ${store}`);
    const spec: CaseSpec = {
      kind: 'store',
      store,
      concurrency: args.concurrency,
      rerank: args.rerank,
      ingestFloor: args.ingestFloor,
      databaseUrl: args.databaseUrl,
      ...common,
    };
    const message = await runCaseInChild(spec);
    if (message.ok && 'store' in message.result) {
      size.stores.push(message.result);
      if ('retrievalPolicy' in message) identity.retrievalPolicy ??= message.retrievalPolicy;
    } else {
      const reason = message.ok ? 'the case reported a peer result' : message.reason;
      console.error(`${entries} entries, ${store}: ${reason}`);
      size.stores.push({ store, measured: false, reason });
    }
  }
  if (args.peers) {
    for (const [peer, { system, mode }] of PEER_SYSTEMS.entries()) {
      console.log(`\n${entries} entries, ${system} ${mode}`);
      const message = await runCaseInChild({ kind: 'peer', peer, ...common });
      if (message.ok && 'system' in message.result) {
        size.peers.push(message.result);
      } else {
        const reason = message.ok ? 'the case reported a store result' : message.reason;
        console.error(`${entries} entries, ${system} ${mode}: ${reason}`);
        size.peers.push({ system, mode, measured: false, reason });
      }
    }
  }
  return size;
}

function report(
  args: ScaleArgs,
  sizes: SizeResult[],
  retrievalPolicy: string | undefined,
  loadAtStart: number[],
): ScaleReport {
  const cpus = os.cpus();
  return validateScaleReport({
    benchmark: 'scale',
    generated_at: new Date().toISOString(),
    machine: {
      cpus: cpus.length,
      cpu_model: cpus[0]?.model ?? 'unknown',
      total_memory_mb: round(os.totalmem() / 2 ** 20, 0),
      load_average_start: loadAtStart,
      load_average_end: loadAverage(),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    config: {
      sizes: args.sizes,
      stores: args.stores,
      concurrency: args.concurrency,
      queries: args.queries,
      warmup_queries: WARMUP_QUERIES,
      scopes: args.scopes,
      seed: args.seed,
      limit: SEARCH_LIMIT,
      batch_size: REMEMBER_BATCH_SIZE,
      embedding_profile: createLocalEmbedder().profile.id,
      retrieval_policy: retrievalPolicy ?? NOT_MEASURED,
    },
    sizes,
  });
}

async function main(): Promise<number> {
  const args = parseCommandLine(parseScaleArgs, SCALE_USAGE);
  if (typeof args === 'number') return args;
  const started = performance.now();
  const loadAtStart = loadAverage();
  console.log(
    `scale benchmark: sizes ${args.sizes.join(', ')}, stores ${args.stores.join(', ')}, ` +
      `clients ${args.concurrency.join(', ')}, ${args.queries} queries per mode${args.peers ? ', peers' : ''}`,
  );
  if (args.stores.includes('postgres')) {
    // Fail fast: do not spend minutes on PGlite when PostgreSQL is unreachable.
    try {
      await (await createThrowawayDatabase(args.databaseUrl)).drop();
    } catch (error) {
      console.error(`PostgreSQL at ${args.databaseUrl} is not usable: ${describeError(error)}`);
      return 1;
    }
  }
  await mkdir(args.out, { recursive: true });
  const jsonFile = path.join(args.out, 'scale.json');
  const markdownFile = path.join(args.out, 'scale.md');
  const sizes: SizeResult[] = [];
  const identity: { retrievalPolicy?: string } = {};
  let written: ScaleReport | undefined;
  for (const entries of args.sizes) {
    sizes.push(await runSize(args, entries, identity));
    // Written after every size, so a long run keeps what it measured.
    written = report(args, sizes, identity.retrievalPolicy, loadAtStart);
    await writeFile(jsonFile, `${JSON.stringify(written, null, 2)}\n`);
    await writeFile(markdownFile, scaleMarkdown(written));
  }
  console.log(`\n${scaleMarkdown(written!)}`);
  console.log(
    `Wrote ${jsonFile} and ${markdownFile}; run time ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const failed = sizes.some(
    (size) => size.stores.some((store) => !store.measured) || size.peers.some((peer) => !peer.measured),
  );
  return failed ? 1 : 0;
}

process.exitCode = await main();
