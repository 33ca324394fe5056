import { describe, expect, it } from 'vitest';
import { RerankFailureError } from '../errors/rerank-failure-error.js';
import type { MemoryReranker, RerankOptions } from '../ports/memory-reranker.port.js';
import {
  describeRerankerConformance,
  type RerankBackend,
  type RerankerConformanceOptions,
  rerankerConformanceSuite,
  runRerankerConformance,
} from './reranker-conformance.js';
import { createScriptedReranker } from './scripted-reranker.js';

/** Waits until the signal aborts, then rejects with its reason, as a real backend call does. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** The in-memory fake: a scripted reranker whose script plays the backend. */
function scriptedReranker(backend: RerankBackend): MemoryReranker {
  return createScriptedReranker({
    policyId: 'test.scripted.v1',
    decide(_query, candidates, _limit, options: RerankOptions) {
      if (backend.kind === 'fail') throw new RerankFailureError('test.scripted.v1', 'backend down');
      if (backend.kind === 'hang') return untilAborted(options.signal);
      return candidates.flatMap((hit, index) => (backend.keeps(hit.text) ? [index + 1] : []));
    },
  });
}

describeRerankerConformance('scripted in-memory reranker', { create: scriptedReranker });

describe('the MemoryReranker conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = rerankerConformanceSuite({ create: scriptedReranker }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  async function failedChecks(options: RerankerConformanceOptions) {
    const outcomes = await runRerankerConformance({ ...options, patienceMs: 1_500 });
    return outcomes.filter((outcome) => !outcome.passed);
  }

  it('passes the scripted fake on every check', async () => {
    expect(await failedChecks({ create: scriptedReranker })).toEqual([]);
  });

  it('fails a reranker that pads a sparse selection up to the limit', async () => {
    const padding = (backend: RerankBackend): MemoryReranker => {
      const inner = scriptedReranker(backend);
      return {
        policyId: inner.policyId,
        async rerank(query, candidates, limit, options) {
          const decision = await inner.rerank(query, candidates, limit, options);
          const padded = [...decision.selectedRanks];
          for (let rank = 1; padded.length < Math.min(limit, candidates.length); rank += 1)
            if (!padded.includes(rank)) padded.push(rank);
          return { ...decision, selectedRanks: padded };
        },
      };
    };
    const failed = await failedChecks({ create: padding });
    expect(failed.map((outcome) => outcome.title)).toEqual([
      'selects the relevant candidates and nothing else: a sparse selection is never padded',
    ]);
    expect(failed[0]!.message).toContain('got [2,5,1,3]');
    expect(failed[0]!.rule).toContain('seed 000');
  });

  it('fails a reranker that ignores the abort signal and one that calls the backend before the bounds', async () => {
    const deaf = (backend: RerankBackend): MemoryReranker =>
      createScriptedReranker({
        decide: (_query, candidates) =>
          backend.kind === 'hang'
            ? new Promise<never>(() => {})
            : candidates.flatMap((hit, index) =>
                backend.kind === 'judge' && backend.keeps(hit.text) ? [index + 1] : [],
              ),
      });
    const failed = await failedChecks({ create: deaf });
    expect(failed.map((outcome) => outcome.title)).toContain(
      "honours the caller's abort, rethrowing the caller's reason",
    );
    expect(failed.find((outcome) => outcome.title.startsWith('honours'))!.message).toContain(
      'ignored the abort signal',
    );

    const unbounded = (backend: RerankBackend): MemoryReranker => {
      const inner = scriptedReranker(backend);
      return {
        policyId: inner.policyId,
        rerank: (query, candidates, limit, options) =>
          backend.kind === 'hang'
            ? untilAborted(options?.signal)
            : inner.rerank(query, candidates, limit, options),
      };
    };
    const unboundedFailures = await failedChecks({ create: unbounded });
    expect(unboundedFailures.map((outcome) => outcome.title)).toContain(
      'refuses a pool or a limit out of bounds before any backend call',
    );
  });

  it('fails a reranker that turns a backend failure into coarse ranks', async () => {
    const silent = (backend: RerankBackend): MemoryReranker => {
      const inner = scriptedReranker(backend);
      return {
        policyId: inner.policyId,
        rerank: (query, candidates, limit, options) =>
          inner.rerank(query, candidates, limit, options).catch(() => ({
            selectedRanks: [1],
            usage: { requests: 1, calls: 1 },
            discardedRankCount: 0,
            usedFallback: true,
          })),
      };
    };
    const failed = await failedChecks({ create: silent });
    // Swallowing every error also swallows the bounds error and the caller's abort.
    expect(failed.map((outcome) => outcome.title)).toEqual([
      'refuses a pool or a limit out of bounds before any backend call',
      "honours the caller's abort, rethrowing the caller's reason",
      'fails with a typed error when the backend fails, never with a silent coarse result',
    ]);
    expect(failed[2]!.message).toContain('a failed backend must fail the rerank');
  });
});
