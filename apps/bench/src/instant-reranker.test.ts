import type { MemoryHit } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createInstantReranker, INSTANT_RERANKER_POLICY_ID } from './instant-reranker.js';

const pool = (size: number) => Array.from({ length: size }, () => ({}) as MemoryHit);

describe('createInstantReranker', () => {
  it('keeps the coarse order: ranks 1..min(limit, pool), no usage, no discards', async () => {
    const reranker = createInstantReranker();
    expect(reranker.policyId).toBe(INSTANT_RERANKER_POLICY_ID);
    expect(await reranker.rerank('query', pool(30), 10)).toEqual({
      selectedRanks: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      usage: { requests: 0, calls: 0 },
      discardedRankCount: 0,
      usedFallback: false,
    });
    expect((await reranker.rerank('query', pool(3), 10)).selectedRanks).toEqual([1, 2, 3]);
  });
});
