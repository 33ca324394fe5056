import { ingestFloorTable } from './ingest-floor-report.js';
import type { Latency, PeerResult, ScaleReport, SizeResult, StoreResult } from './scale-report.js';
import { SEARCH_MODES } from './scale-report.js';

const DASH = '—';
const ms = (value: number) => value.toFixed(2);
const rate = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const count = (value: number) => value.toLocaleString('en-US');
const p50p95 = (latency: Pick<Latency, 'p50_ms' | 'p95_ms'>) =>
  `${ms(latency.p50_ms)} / ${ms(latency.p95_ms)}`;

const measuredStores = (size: SizeResult) =>
  size.stores.filter((store): store is StoreResult => store.measured);
const measuredPeers = (size: SizeResult) => size.peers.filter((peer): peer is PeerResult => peer.measured);

/** Entries/s of each successive 10,000 entries, for corpora of 20,000 and more. */
function ingestBlocks(report: ScaleReport): string[] {
  const lines: string[] = [];
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const blocks = store.ingest.entries_per_second_by_10k;
      if (!blocks) continue;
      lines.push(
        `Entries/s by 10,000 (${count(size.entries)} entries in ${size.scopes} scope${size.scopes === 1 ? '' : 's'}, ${store.store}): ` +
          `${blocks.map((value) => rate(value)).join(', ')}.`,
        '',
      );
    }
    for (const store of measuredStores(size)) {
      const small = store.small_scope_writes;
      if (!small) continue;
      lines.push(
        `Remember of one entry into a small scope while another scope holds ${count(small.large_scope_entries)} entries (${store.store}): ` +
          `p50 ${ms(small.p50_ms)} ms, p95 ${ms(small.p95_ms)} ms over ${small.remembers} calls.`,
        '',
      );
    }
  }
  return lines;
}

function ingestTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | system | ingest entries/s | ingest s | peak RSS MB | storage MB | bytes/entry |',
    '|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const size of report.sizes) {
    const e = size.embedder;
    lines.push(
      `| ${count(size.entries)} | local embedder alone (${count(e.entries)} texts) | ${rate(e.entries_per_second)} | ${e.seconds.toFixed(1)} | ${DASH} | ${DASH} | ${DASH} |`,
    );
    for (const store of measuredStores(size)) {
      lines.push(
        `| ${count(size.entries)} | powercontext ${store.store} | ${rate(store.ingest.entries_per_second)} | ` +
          `${store.ingest.seconds.toFixed(1)} | ${store.peak_rss_mb.toFixed(0)}${store.store === 'postgres' ? ' (client only)' : ''} | ` +
          `${store.storage_mb === undefined ? DASH : store.storage_mb.toFixed(0)} | ` +
          `${store.bytes_per_entry === undefined ? DASH : count(Math.round(store.bytes_per_entry))} |`,
      );
    }
    for (const peer of measuredPeers(size)) {
      lines.push(
        `| ${count(size.entries)} | ${peer.system} ${peer.mode} (in-process index) | ${rate(peer.ingest.entries_per_second)} | ` +
          `${peer.ingest.seconds.toFixed(1)} | ${peer.peak_rss_mb.toFixed(0)} | ${DASH} | ${DASH} |`,
      );
    }
  }
  return lines;
}

/** Product against the ingest floor (ingest-floor.ts), when the run measured it. */
function ingestFloorSection(report: ScaleReport): string[] {
  const table = ingestFloorTable(report.sizes);
  if (table.length === 0) return [];
  return [
    '### Ingest floor',
    '',
    'The same batches written by hand-written batched SQL (one transaction per batch: entry versions with their ' +
      'tsvector, projections with neighbour context and their postings, vectors) into a fresh database of the same ' +
      "store with the product's tables and indexes, each batch right after the product's, so both see the same load. " +
      "The floor's vectors are computed before its clock starts; the product's entries/s includes embedding.",
    '',
    ...table,
    '',
  ];
}

function searchTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | system | mode | p50 ms | p95 ms | p99 ms | mean ms | mean hits |',
    '|---:|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      for (const mode of SEARCH_MODES) {
        const m = store.search[mode];
        lines.push(
          `| ${count(size.entries)} | powercontext ${store.store} | ${mode} | ${ms(m.p50_ms)} | ${ms(m.p95_ms)} | ` +
            `${ms(m.p99_ms)} | ${ms(m.mean_ms)} | ${m.mean_hits.toFixed(2)} |`,
        );
      }
    }
    for (const peer of measuredPeers(size)) {
      const m = peer.search;
      lines.push(
        `| ${count(size.entries)} | ${peer.system} | ${peer.mode} | ${ms(m.p50_ms)} | ${ms(m.p95_ms)} | ` +
          `${ms(m.p99_ms)} | ${ms(m.mean_ms)} | ${m.mean_hits.toFixed(2)} |`,
      );
    }
  }
  return lines;
}

function floorTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | scopes | store | mode | product p50 / p95 ms | floor p50 / p95 ms | product / floor p50 |',
    '|---:|---:|---|---|---:|---:|---:|',
  ];
  let rows = 0;
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const floor = store.search_floor;
      if (!floor) continue;
      for (const mode of SEARCH_MODES) {
        const f = floor[mode];
        if (!f) {
          lines.push(
            `| ${count(size.entries)} | ${size.scopes} | ${store.store} | ${mode} | not compared: too few queries of scopes without an HNSW index (approximate) | | |`,
          );
          continue;
        }
        rows++;
        lines.push(
          `| ${count(size.entries)} | ${size.scopes} | ${store.store} | ${mode} | ${ms(f.product_p50_ms)} / ${ms(f.product_p95_ms)} | ` +
            `${ms(f.floor_p50_ms)} / ${ms(f.floor_p95_ms)} | ${f.ratio_p50.toFixed(2)} |`,
        );
      }
    }
  }
  return rows === 0 ? ['Not measured in this run (the floor runs on PostgreSQL).'] : lines;
}

function writesTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | scopes | store | searches per write | search p50 / p95 ms | static p50 ms | p50 / static | write p50 ms | from memory (lexical, vector) | catch-up ms per write |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  let rows = 0;
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const writes = store.writes_between_searches;
      if (!writes) continue;
      for (const row of writes.rows) {
        rows++;
        lines.push(
          `| ${count(size.entries)} | ${size.scopes} | ${store.store} | ${row.searches_per_write} | ` +
            `${ms(row.search_p50_ms)} / ${ms(row.search_p95_ms)} | ${ms(writes.static_p50_ms)} | ${row.ratio_p50.toFixed(2)} | ` +
            `${ms(row.write_p50_ms)} | ${row.lexical_from_memory}, ${row.vector_from_memory} of ${row.searches} | ${row.catch_up_ms_per_write.toFixed(2)} |`,
        );
      }
    }
  }
  return rows === 0 ? ['Not measured in this run.'] : lines;
}

function filteredTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | scopes | store | filter | keeps | p50 / p95 ms | unfiltered p50 ms | ratio | hits per search |',
    '|---:|---:|---|---|---:|---:|---:|---:|---:|',
  ];
  let rows = 0;
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const filtered = store.filtered_searches;
      if (!filtered) continue;
      for (const row of filtered.rows) {
        rows++;
        lines.push(
          `| ${count(size.entries)} | ${size.scopes} | ${store.store} | ${row.filter} | ${row.kept_share * 100}% | ` +
            `${ms(row.p50_ms)} / ${ms(row.p95_ms)} | ${ms(filtered.unfiltered_p50_ms)} | ${row.ratio_p50.toFixed(2)} | ${row.mean_hits} |`,
        );
      }
    }
  }
  return rows === 0 ? ['Not measured in this run.'] : lines;
}

function throughputTable(report: ScaleReport): string[] {
  const levels = report.config.concurrency;
  const lines = [
    `| entries | store | mode | ${levels.map((clients) => `${clients} client${clients === 1 ? '' : 's'}: searches/s (p50 / p95 ms; 503s)`).join(' | ')} |`,
    `|---:|---|---|${levels.map(() => '---:').join('|')}|`,
  ];
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const rows = [
        ...SEARCH_MODES.map((mode) => ({ mode, label: mode, writes: false })),
        { mode: 'hybrid' as const, label: 'hybrid, 1 write per 20', writes: true },
      ];
      for (const row of rows) {
        const cells = levels.map((clients) => {
          const run = store.throughput.find(
            (item) =>
              item.mode === row.mode &&
              item.clients === clients &&
              (item.writes_every !== undefined) === row.writes,
          );
          return run ? `${rate(run.searches_per_second)} (${p50p95(run)}; ${run.unavailable})` : DASH;
        });
        if (row.writes && cells.every((cell) => cell === DASH)) continue;
        lines.push(`| ${count(size.entries)} | ${store.store} | ${row.label} | ${cells.join(' | ')} |`);
      }
    }
  }
  return lines;
}

/** Per throughput run: how many channel answers came from memory, and the benchmark process's CPU. */
function throughputNotes(report: ScaleReport): string[] {
  const lines: string[] = [];
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      for (const run of store.throughput) {
        if (run.lexical_from_memory === undefined || run.vector_from_memory === undefined) continue;
        const writes = run.writes_every ? `, 1 write per ${run.writes_every}` : '';
        const cpu =
          run.client_cpu_share === undefined
            ? ''
            : `; the benchmark process used ${run.client_cpu_share} cores`;
        lines.push(
          `- ${count(size.entries)} ${store.store} ${run.mode}, ${run.clients} clients${writes}: ${run.searches} searches, ` +
            `${run.lexical_from_memory} lexical and ${run.vector_from_memory} vector answers from memory${cpu}`,
        );
      }
    }
  }
  return lines;
}

const withBlankAfter = (lines: string[]) => (lines.length > 0 ? [...lines, ''] : []);

function rerankTable(report: ScaleReport): string[] {
  const lines = [
    '| entries | store | no reranker: search p50 / p95 ms | instant reranker: search p50 / p95 ms | coarse path (pool) p50 / p95 ms | rerank stage p50 / p95 / p99 ms |',
    '|---:|---|---:|---:|---:|---:|',
  ];
  let rows = 0;
  for (const size of report.sizes) {
    for (const store of measuredStores(size)) {
      const r = store.rerank_overhead;
      if (!r) continue;
      rows++;
      lines.push(
        `| ${count(size.entries)} | ${store.store} | ${p50p95(r.without_reranker)} | ${p50p95(r.with_instant_reranker)} | ` +
          `${p50p95(r.coarse_ms)} (${r.candidate_limit}) | ${p50p95(r.stage_ms)} / ${ms(r.stage_ms.p99_ms)} |`,
      );
    }
  }
  return rows === 0 ? ['Not measured in this run (--no-rerank, or no store was measured).'] : lines;
}

function notMeasured(report: ScaleReport): string[] {
  const lines: string[] = [];
  for (const size of report.sizes) {
    for (const store of size.stores) {
      if (!store.measured) lines.push(`- ${count(size.entries)} entries, ${store.store}: ${store.reason}`);
    }
    for (const peer of size.peers) {
      if (!peer.measured) {
        lines.push(`- ${count(size.entries)} entries, ${peer.system} ${peer.mode}: ${peer.reason}`);
      }
    }
  }
  return lines;
}

/** The human-readable report written to `<out>/scale.md`. */
export function scaleMarkdown(report: ScaleReport): string {
  const c = report.config;
  const m = report.machine;
  const corpus = report.sizes
    .map(
      (size) =>
        `${count(size.entries)} entries over ${size.scopes} scopes (mean ${size.corpus.mean_words.toFixed(1)} words, ` +
        `${size.corpus.mean_chars.toFixed(0)} characters, longest ${size.corpus.max_chars})`,
    )
    .join('; ');
  const lines = [
    '# Scale benchmark',
    '',
    `Generated ${report.generated_at} on ${m.cpus} CPUs (${m.cpu_model}), ${count(Math.round(m.total_memory_mb))} MB RAM, ` +
      `Node ${m.node}, ${m.platform}; load average ${m.load_average_start.join(' / ')} (1 / 5 / 15 min) at the start, ` +
      `${m.load_average_end.join(' / ')} at the end. Measured figures for this machine, not promises.`,
    '',
    `Synthetic chat-memory corpus, seed ${c.seed}: ${corpus}. Embedding profile \`${c.embedding_profile}\`, ` +
      `retrieval policy \`${c.retrieval_policy}\`. Every search has limit ${c.limit}; latencies are over ${c.queries} ` +
      `queries per mode after ${c.warmup_queries} warm-up queries, each query against its own scope. remember() gets ` +
      `${c.batch_size} entries per call. Each store and each peer runs in a child process of its own, so its peak RSS is its own.`,
    '',
    '## Ingest',
    '',
    "Entries per second through `memory.forScope(s).remember()` for the stores, through the library's own index " +
      'call for the peers (Orama hybrid includes embedding the texts). The local embedder row is the embedder ' +
      'alone: the share of ingest it costs. PostgreSQL peak RSS is the benchmark process only: the server runs in ' +
      'processes of its own, whose memory is not counted.',
    '',
    ...ingestTable(report),
    '',
    ...ingestBlocks(report),
    ...ingestFloorSection(report),
    '## Search latency (one client)',
    '',
    ...searchTable(report),
    '',
    '## Search floor (one client, PostgreSQL)',
    '',
    "For each mode the fastest hand-written SQL we know with the product's semantics (same head revision, " +
      'BM25 parameters, visibility rule, admission, exact cosine, weighted RRF and tie-break), one statement on the ' +
      "product's own tables and indexes, run query by query interleaved with the product's search and checked to " +
      'return the same entries in the same order. The product adds the head and index-state reads, the query ' +
      'embedding, full entry rows and the service around them.',
    '',
    ...floorTable(report),
    '',
    '## Writes between searches (one client, the first scope)',
    '',
    'What an agent does: remember one new entry, then run S hybrid searches of the same scope, again and again. ' +
      "The static p50 is the same scope's hybrid p50 with no writes, measured just before the rows. From memory " +
      'counts the channel answers that the indexes in memory gave (each search runs both channels); the catch-up ' +
      'is the time spent moving those indexes forward by the writes, per write.',
    '',
    ...writesTable(report),
    '',
    '## Filtered search (one client, the first scope; RFC 0014)',
    '',
    'Hybrid searches with a filter keeping 1% and 50% of the scope (tags), interleaved query by query with the ' +
      'same searches unfiltered; the ratio is the filtered p50 over the unfiltered p50 of the same run (target at most 1.5).',
    '',
    ...filteredTable(report),
    '',
    '## Throughput (concurrent clients in one process)',
    '',
    'Each level sends max(queries, 20 x clients) searches; searches/s is wall-clock throughput. In the row with ' +
      "writes, one task in 20 remembers a new entry in its query's scope instead of searching (the searches meet " +
      "new revisions, as an agent's do); searches/s and latencies count the searches. PostgreSQL uses " +
      "the runtime's pool of 10 connections, and its latencies include the wait for a connection. The 503s are the " +
      'searches and writes the store could not answer (store_unavailable, which the server answers 503 ' +
      'database_unavailable); they are left out of searches/s. PGlite has one ' +
      'connection and answers without returning to the event loop, so concurrent searches in one process run one ' +
      "after another: its latencies are each search's own time, not the wait before it started; compare searches/s. " +
      "The peers search synchronously on the caller's thread, so they have no throughput runs.",
    '',
    ...throughputTable(report),
    '',
    ...withBlankAfter(throughputNotes(report)),
    '## Rerank stage overhead (instant fake reranker, hybrid)',
    '',
    'The same queries through a runtime with `createRuntime({ reranker })`, a reranker that returns ranks ' +
      'immediately. The search then fetches a coarse pool of max(limit, candidate limit) instead of limit hits; the ' +
      "stage column is `trace.latencies.rerankMs`, the stage's own cost with no model time in it.",
    '',
    ...rerankTable(report),
  ];
  const missing = notMeasured(report);
  if (missing.length > 0) lines.push('', '## Not measured', '', ...missing);
  return `${lines.join('\n')}\n`;
}
