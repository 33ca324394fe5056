import { performance } from 'node:perf_hooks';
import type { Runtime } from '@powercontext/runtime';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf } from './measure.js';
import type { SmallScopeWrites } from './scale-report.js';
import type { CorpusEntry } from './synthetic-corpus.js';

/** Single-entry remembers timed into the small scope. */
export const SMALL_SCOPE_REMEMBERS = 40;

/**
 * Remember into a small scope while another scope holds the whole corpus (issue 28): one entry per
 * call into a scope of its own, so only what the large scope's indexes cost other writers shows. The
 * first few calls (the scope's creation, cold plans) are a warm-up.
 */
export async function measureSmallScopeWrites(
  runtime: Runtime,
  scopeId: string,
  largeScopeEntries: number,
  entries: readonly CorpusEntry[],
): Promise<SmallScopeWrites> {
  const memory = runtime.memory.forScope(scopeId);
  const warmUp = 5;
  const samples: number[] = [];
  for (const [index, entry] of entries.slice(0, SMALL_SCOPE_REMEMBERS + warmUp).entries()) {
    const started = performance.now();
    await memory.remember({ entries: [{ text: entry.text, kind: 'turn' }] });
    if (index >= warmUp) samples.push(performance.now() - started);
    await yieldToEventLoop();
  }
  const { p50_ms, p95_ms } = latencyOf(samples);
  return { large_scope_entries: largeScopeEntries, remembers: samples.length, p50_ms, p95_ms };
}
