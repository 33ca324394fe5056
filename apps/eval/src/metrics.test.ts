import { describe, expect, it } from 'vitest';
import {
  countRelevantUnits,
  meanMetrics,
  ndcgAt10,
  oracleOrder,
  questionMetrics,
  roundMetrics,
} from './metrics.js';

const gain = (rank: number) => 1 / Math.log2(rank + 1);

describe('questionMetrics', () => {
  it('counts each evidence id once, however often the question repeats it', () => {
    const ranked = [['D9:9'], ['D1:1'], ['D5:5'], ['D2:3']];
    const metrics = questionMetrics(ranked, { evidence: ['D1:1', 'D1:1', 'D2:3'], relevantUnits: 2 }, 10);
    expect(metrics.recall_at_1).toBe(0);
    expect(metrics.recall_at_5).toBe(1);
    expect(metrics.recall_at_10).toBe(1);
    expect(metrics.hit_at_10).toBe(1);
    expect(metrics.mrr).toBe(0.5);
    expect(metrics.ndcg_at_10).toBeCloseTo((gain(2) + gain(4)) / (gain(1) + gain(2)), 12);
  });

  it('keeps evidence that is never retrieved in the denominator', () => {
    const ranked = [['D1:1'], ['D3:3']];
    const metrics = questionMetrics(ranked, { evidence: ['D1:1', 'D7:7'], relevantUnits: 2 }, 50);
    for (const k of [1, 5, 10, 25, 30, 50] as const) expect(metrics[`recall_at_${k}`]).toBe(0.5);
    expect(metrics.mrr).toBe(1);
    expect(metrics.ndcg_at_10).toBeCloseTo(gain(1) / (gain(1) + gain(2)), 12);
  });

  it('does not count one evidence id twice when two units cover it', () => {
    const ranked = [['D1:1', 'D1:2'], ['D1:1']];
    const metrics = questionMetrics(ranked, { evidence: ['D1:1', 'D2:2'], relevantUnits: 2 }, 10);
    expect(metrics.recall_at_1).toBe(0.5);
    expect(metrics.recall_at_10).toBe(0.5);
    // Both units are relevant, and two relevant units exist: a perfect ranking.
    expect(metrics.ndcg_at_10).toBeCloseTo(1, 12);
  });

  it('scores a list without any evidence as zero everywhere', () => {
    const metrics = questionMetrics([['D1:1'], ['D1:2']], { evidence: ['D4:4'], relevantUnits: 1 }, 10);
    expect(metrics).toEqual({
      recall_at_1: 0,
      recall_at_5: 0,
      recall_at_10: 0,
      hit_at_10: 0,
      mrr: 0,
      ndcg_at_10: 0,
      no_hits: 0,
    });
  });

  it('marks a search that returned nothing, so its mean is the share of empty answers', () => {
    const empty = questionMetrics([], { evidence: ['D1:1'], relevantUnits: 1 }, 10);
    expect(empty.no_hits).toBe(1);
    expect(empty.recall_at_10).toBe(0);
    expect(
      meanMetrics([empty, questionMetrics([['D1:2']], { evidence: ['D1:1'], relevantUnits: 1 }, 10)])
        ?.no_hits,
    ).toBe(0.5);
  });

  it('counts hit@10 and MRR from the first relevant unit only', () => {
    const ranked = Array.from({ length: 12 }, (_, index) => [`D1:${index + 1}`]);
    const late = questionMetrics(ranked, { evidence: ['D1:11'], relevantUnits: 1 }, 50);
    expect(late.hit_at_10).toBe(0);
    expect(late.mrr).toBeCloseTo(1 / 11, 12);
    expect(late.recall_at_10).toBe(0);
    expect(late.recall_at_25).toBe(1);
    expect(late.ndcg_at_10).toBe(0);
    const third = questionMetrics(ranked, { evidence: ['D1:3', 'D1:5'], relevantUnits: 2 }, 10);
    expect(third.hit_at_10).toBe(1);
    expect(third.mrr).toBeCloseTo(1 / 3, 12);
  });

  it('leaves keys above the search depth absent, not null', () => {
    const ranked = [['D1:1']];
    const target = { evidence: ['D1:1'], relevantUnits: 1 };
    expect(Object.keys(questionMetrics(ranked, target, 10))).toEqual([
      'recall_at_1',
      'recall_at_5',
      'recall_at_10',
      'hit_at_10',
      'mrr',
      'ndcg_at_10',
      'no_hits',
    ]);
    expect(Object.keys(questionMetrics(ranked, target, 5))).toEqual([
      'recall_at_1',
      'recall_at_5',
      'mrr',
      'no_hits',
    ]);
    expect(Object.keys(questionMetrics(ranked, target, 30))).toContain('recall_at_30');
    expect(Object.keys(questionMetrics(ranked, target, 30))).not.toContain('recall_at_50');
  });

  it('ignores units below the depth', () => {
    const ranked = [['D1:1'], ['D1:2'], ['D1:3']];
    const metrics = questionMetrics(ranked, { evidence: ['D1:3'], relevantUnits: 1 }, 1);
    expect(metrics).toEqual({ recall_at_1: 0, mrr: 0, no_hits: 0 });
  });

  it('rejects a question without evidence', () => {
    expect(() => questionMetrics([['D1:1']], { evidence: [], relevantUnits: 0 }, 10)).toThrow(RangeError);
  });
});

describe('ndcgAt10', () => {
  it('takes the ideal DCG from min(relevant units, 10) and is 0 when nothing is relevant', () => {
    expect(ndcgAt10([true, true], 2)).toBe(1);
    expect(ndcgAt10([false, true], 1)).toBeCloseTo(gain(2), 12);
    const allRelevant = Array.from({ length: 10 }, () => true);
    expect(ndcgAt10(allRelevant, 25)).toBeCloseTo(1, 12);
    expect(ndcgAt10([true], 0)).toBe(0);
    expect(ndcgAt10([], 3)).toBe(0);
  });
});

describe('countRelevantUnits', () => {
  it('counts units that cover any evidence id', () => {
    expect(countRelevantUnits([['D1:1'], ['D1:2', 'D2:2'], ['D3:3']], ['D2:2', 'D1:1'])).toBe(2);
  });
});

describe('oracleOrder', () => {
  it('puts the greedy cover of the evidence first, then other relevant units, then the rest', () => {
    const pool = [['a'], ['x'], ['b', 'c'], ['c']];
    expect(oracleOrder(pool, ['a', 'b', 'c'])).toEqual([2, 0, 3, 1]);
  });

  it('keeps the pool order when nothing is relevant', () => {
    expect(oracleOrder([['x'], ['y']], ['a'])).toEqual([0, 1]);
  });

  it('reaches the best recall@k of the pool for turn units', () => {
    const pool = [['D1:1'], ['D1:2'], ['D1:3'], ['D1:4']];
    const order = oracleOrder(pool, ['D1:4', 'D1:2']).map((index) => pool[index]!);
    const metrics = questionMetrics(order, { evidence: ['D1:4', 'D1:2'], relevantUnits: 2 }, 10);
    expect(metrics.recall_at_1).toBe(0.5);
    expect(metrics.recall_at_5).toBe(1);
    expect(metrics.ndcg_at_10).toBe(1);
  });
});

describe('meanMetrics and roundMetrics', () => {
  it('averages key by key and keeps a key only when every item has it', () => {
    expect(meanMetrics([])).toBeUndefined();
    expect(meanMetrics([{ recall_at_1: 1, mrr: 1 }, { recall_at_1: 0 }])).toEqual({ recall_at_1: 0.5 });
    expect(roundMetrics({ recall_at_5: 2 / 3 })).toEqual({ recall_at_5: 0.6667 });
  });
});
