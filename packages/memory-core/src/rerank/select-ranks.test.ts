import { describe, expect, it } from 'vitest';
import { assertRerankBounds } from './rerank-bounds.js';
import { coarseFallbackRanks, selectRanks } from './select-ranks.js';

describe('selectRanks (RFC 0080 normalization)', () => {
  it('keeps first occurrences in order, discards duplicates and out-of-range ranks, stops at the limit', () => {
    expect(selectRanks([3, 3, 99, 1], 5, 2)).toEqual({
      selectedRanks: [3, 1],
      discardedRankCount: 2,
      ignoredAfterLimitCount: 0,
      usedFallback: false,
    });
  });
  it('falls back to coarse ranks 1..min(limit, n) when no valid rank remains', () => {
    expect(selectRanks([0, 8, 8], 2, 5)).toEqual({
      selectedRanks: [1, 2],
      discardedRankCount: 3,
      ignoredAfterLimitCount: 0,
      usedFallback: true,
    });
    expect(selectRanks([], 4, 3)).toMatchObject({
      selectedRanks: [1, 2, 3],
      discardedRankCount: 0,
      usedFallback: true,
    });
  });
  it('never pads a sparse selection and counts ranks after the limit separately', () => {
    expect(selectRanks([2], 10, 5)).toMatchObject({ selectedRanks: [2], usedFallback: false });
    expect(selectRanks([4, 1, 2, 3, 4, 0], 5, 2)).toEqual({
      selectedRanks: [4, 1],
      discardedRankCount: 2,
      ignoredAfterLimitCount: 2,
      usedFallback: false,
    });
  });
  it('counts a duplicate after the limit as discarded, not ignored', () => {
    expect(selectRanks([1, 2, 3, 3, 3], 5, 2)).toEqual({
      selectedRanks: [1, 2],
      discardedRankCount: 2,
      ignoredAfterLimitCount: 1,
      usedFallback: false,
    });
  });
  it('treats non-integers as out of range', () => {
    expect(selectRanks([1.5, Number.NaN, 2], 3, 3)).toMatchObject({
      selectedRanks: [2],
      discardedRankCount: 2,
    });
  });
  it('builds the fallback from the smaller of limit and pool', () => {
    expect(coarseFallbackRanks(3, 10)).toEqual([1, 2, 3]);
    expect(coarseFallbackRanks(30, 2)).toEqual([1, 2]);
  });
});

describe('assertRerankBounds', () => {
  it('accepts pools of 1..100 and limits of 1..50 only', () => {
    expect(() => assertRerankBounds(1, 1)).not.toThrow();
    expect(() => assertRerankBounds(100, 50)).not.toThrow();
    for (const [pool, limit, field] of [
      [0, 10, 'candidates'],
      [101, 10, 'candidates'],
      [10, 0, 'limit'],
      [10, 51, 'limit'],
    ] as const) {
      expect(() => assertRerankBounds(pool, limit)).toThrow(
        expect.objectContaining({ code: 'rerank_out_of_bounds', field }),
      );
    }
  });
});
