import type { LatencySummary } from '@powercontext/cli-support';
import type { Backend } from './args.js';

export const SEARCH_MODES = ['fts', 'vector', 'hybrid'] as const;
export type BenchMode = (typeof SEARCH_MODES)[number];

export interface ModeResult extends LatencySummary {
  mean_hits: number;
}

export interface BackendResult {
  backend: Backend;
  ingest: { entries: number; seconds: number; entries_per_second: number };
  search: Record<BenchMode, ModeResult>;
  /** process.resourceUsage().maxRSS after this backend: the peak of the whole process so far. */
  peak_rss_mb: number;
}

export interface SearchBenchReport {
  benchmark: 'search';
  generated_at: string;
  machine: { cpus: number; cpu_model: string; node: string; platform: string };
  config: {
    entries: number;
    scopes: number;
    queries: number;
    seed: number;
    embedder_profile_id: string;
    retrieval_policy_id: string;
    warmup_queries: number;
    limit: number;
    batch_size: number;
  };
  results: BackendResult[];
}

const cell = (value: number, digits: number) => value.toFixed(digits);

/** A compact markdown table: one row per backend and search mode. */
export function markdownTable(report: SearchBenchReport): string {
  const c = report.config;
  const lines = [
    `Search benchmark: ${c.entries} entries over ${c.scopes} scopes, ${c.queries} queries per mode ` +
      `(after ${c.warmup_queries} warm-up), limit ${c.limit}, seed ${c.seed}; embedder ${c.embedder_profile_id}, ` +
      `policy ${c.retrieval_policy_id}; ${report.machine.cpus} CPUs, Node ${report.machine.node}, ${report.machine.platform}`,
    '',
    '| backend | ingest entries/s | mode | p50 ms | p95 ms | p99 ms | mean ms | mean hits | peak RSS MB (process) |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const result of report.results) {
    for (const [index, mode] of SEARCH_MODES.entries()) {
      const m = result.search[mode];
      const first = index === 0;
      lines.push(
        `| ${first ? result.backend : ''} | ${first ? `${cell(result.ingest.entries_per_second, 0)} (${cell(result.ingest.seconds, 1)} s)` : ''} ` +
          `| ${mode} | ${cell(m.p50_ms, 2)} | ${cell(m.p95_ms, 2)} | ${cell(m.p99_ms, 2)} | ${cell(m.mean_ms, 2)} ` +
          `| ${cell(m.mean_hits, 2)} | ${first ? cell(result.peak_rss_mb, 0) : ''} |`,
      );
    }
  }
  return lines.join('\n');
}
