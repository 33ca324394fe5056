import type { MemoryReranker } from '@powercontext/memory-core';

export const INSTANT_RERANKER_POLICY_ID = 'bench.instant-reranker.v1';

/**
 * A reranker that answers at once and keeps the coarse order: ranks 1..min(limit, pool). Injected
 * through `createRuntime({ reranker })`, it makes the rerank stage's own cost visible (the larger
 * coarse pool, the concurrency gate, the deadline, the decision's validation and the mapping back to
 * hits) without any model time.
 */
export function createInstantReranker(): MemoryReranker {
  return {
    policyId: INSTANT_RERANKER_POLICY_ID,
    async rerank(_normalizedQuery, candidates, limit) {
      const count = Math.min(limit, candidates.length);
      return {
        selectedRanks: Array.from({ length: count }, (_, index) => index + 1),
        usage: { requests: 0, calls: 0 },
        discardedRankCount: 0,
        usedFallback: false,
      };
    },
  };
}
