import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import type { Runtime } from '@powercontext/runtime';
import { SEARCH_LIMIT, WARMUP_QUERIES } from './case-spec.js';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf, round } from './measure.js';
import type { WritesBetweenSearches } from './scale-report.js';
import type { CorpusEntry, CorpusQuery } from './synthetic-corpus.js';

/** Searches after each write, and how many {write, searches} loops each row runs. */
export const WRITE_SEARCH_ROWS = [
  { searches: 1, loops: 60 },
  { searches: 3, loops: 30 },
  { searches: 10, loops: 12 },
] as const;

/** The channel answers the indexes in memory gave, and their catch-up time, since the store opened. */
export async function indexCounts(runtime: Runtime) {
  const indexes = (await runtime.status?.())?.indexes;
  return {
    lexical: indexes?.lexical?.answered ?? 0,
    vector: indexes?.vector?.answered ?? 0,
    catchUpMs: (indexes?.lexical?.catchUpMs ?? 0) + (indexes?.vector?.catchUpMs ?? 0),
  };
}

/**
 * What an agent does: write one entry, then search, again and again (issue 28). Each row runs `loops`
 * times {remember one new entry in the scope, then `searches` hybrid searches of it}, and reports the
 * searches' latency against the static p50 of the same scope measured just before, with how many
 * channel answers came from memory and the catch-up time per write.
 */
export async function measureWritesBetweenSearches(
  runtime: Runtime,
  scopeId: string,
  queries: readonly CorpusQuery[],
  newEntries: readonly CorpusEntry[],
  label: string,
): Promise<WritesBetweenSearches> {
  const memory = runtime.memory.forScope(scopeId);
  const search = async (query: CorpusQuery) => {
    const started = performance.now();
    await memory.search({ query: query.text, mode: 'hybrid', limit: SEARCH_LIMIT });
    return performance.now() - started;
  };
  const measured = queries.slice(WARMUP_QUERIES);
  for (const query of queries.slice(0, WARMUP_QUERIES)) await search(query);
  const staticSamples: number[] = [];
  for (const query of measured) staticSamples.push(await search(query));
  const staticP50 = latencyOf(staticSamples).p50_ms;
  const total = WRITE_SEARCH_ROWS.reduce((sum, row) => sum + row.loops * (1 + row.searches), 0);
  const bar = createProgressBar(`${label} writes between searches`, total);
  bar.update(0);
  let done = 0;
  let written = 0;
  let asked = 0;
  const rows: WritesBetweenSearches['rows'] = [];
  for (const row of WRITE_SEARCH_ROWS) {
    const before = await indexCounts(runtime);
    const searchSamples: number[] = [];
    const writeSamples: number[] = [];
    for (let loop = 0; loop < row.loops; loop++) {
      const entry = newEntries[written % newEntries.length]!;
      const started = performance.now();
      await memory.remember({
        entries: [
          {
            text: `${entry.text} (${written})`,
            kind: 'turn',
            position: { sourceId: 'writes-between-searches', order: written },
          },
        ],
      });
      writeSamples.push(performance.now() - started);
      written += 1;
      for (let s = 0; s < row.searches; s++) {
        searchSamples.push(await search(measured[asked % measured.length]!));
        asked += 1;
      }
      done += 1 + row.searches;
      bar.update(done);
      await yieldToEventLoop();
    }
    const after = await indexCounts(runtime);
    const latency = latencyOf(searchSamples);
    rows.push({
      searches_per_write: row.searches,
      loops: row.loops,
      search_p50_ms: latency.p50_ms,
      search_p95_ms: latency.p95_ms,
      ratio_p50: staticP50 > 0 ? round(latency.p50_ms / staticP50, 2) : 0,
      write_p50_ms: latencyOf(writeSamples).p50_ms,
      lexical_from_memory: after.lexical - before.lexical,
      vector_from_memory: after.vector - before.vector,
      searches: searchSamples.length,
      catch_up_ms_per_write: round((after.catchUpMs - before.catchUpMs) / row.loops, 2),
    });
  }
  return { scope: scopeId, static_p50_ms: staticP50, rows };
}
