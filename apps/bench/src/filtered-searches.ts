import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import type { EntryFilterInput } from '@powercontext/memory-core';
import type { Runtime } from '@powercontext/runtime';
import { SEARCH_LIMIT, WARMUP_QUERIES } from './case-spec.js';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf, round } from './measure.js';
import type { FilteredSearches } from './scale-report.js';
import type { CorpusQuery } from './synthetic-corpus.js';

/** The tags the ingest gives entries (store-case.ts): every 100th is `pct1`, every 2nd `pct50`. */
export function benchTagsOf(index: number): string[] {
  return [...(index % 100 === 0 ? ['pct1'] : []), ...(index % 2 === 0 ? ['pct50'] : [])];
}

const FILTERS: readonly { name: string; share: number; filter: EntryFilterInput | undefined }[] = [
  { name: 'none', share: 1, filter: undefined },
  { name: 'tags_any pct1', share: 0.01, filter: { tagsAny: ['pct1'] } },
  { name: 'tags_any pct50', share: 0.5, filter: { tagsAny: ['pct50'] } },
];

/**
 * Hybrid searches of one scope without a filter and with filters keeping 1% and 50% of its entries
 * (RFC 0014), interleaved query by query so every row sees the same load; each filtered p50 against
 * the unfiltered p50 of the same run (target: at most 1.5x), and the hits per search (a filter inside
 * the channels keeps the page full).
 */
export async function measureFilteredSearches(
  runtime: Runtime,
  scopeId: string,
  queries: readonly CorpusQuery[],
  label: string,
): Promise<FilteredSearches> {
  const memory = runtime.memory.forScope(scopeId);
  const samples = FILTERS.map(() => [] as number[]);
  const hits = FILTERS.map(() => 0);
  const bar = createProgressBar(`${label} filtered hybrid search`, queries.length);
  bar.update(0);
  for (const [index, query] of queries.entries()) {
    for (const [at, { filter }] of FILTERS.entries()) {
      const started = performance.now();
      const result = await memory.search({
        query: query.text,
        mode: 'hybrid',
        limit: SEARCH_LIMIT,
        ...(filter ? { filter } : {}),
      });
      const milliseconds = performance.now() - started;
      if (index >= WARMUP_QUERIES) {
        samples[at]!.push(milliseconds);
        hits[at]! += result.hits.length;
      }
    }
    bar.update(index + 1);
    await yieldToEventLoop();
  }
  const measured = Math.max(1, queries.length - WARMUP_QUERIES);
  const unfiltered = latencyOf(samples[0]!).p50_ms;
  return {
    unfiltered_p50_ms: unfiltered,
    rows: FILTERS.slice(1).map(({ name, share }, offset) => {
      const latency = latencyOf(samples[offset + 1]!);
      return {
        filter: name,
        kept_share: share,
        p50_ms: latency.p50_ms,
        p95_ms: latency.p95_ms,
        ratio_p50: unfiltered > 0 ? round(latency.p50_ms / unfiltered, 2) : 0,
        mean_hits: round(hits[offset + 1]! / measured, 3),
      };
    }),
  };
}
