import { describe, expect, it } from 'vitest';
import { authorityAdjustment, authorityWeightsSchema, hasAuthority } from './authority.js';

describe('authority weights', () => {
  it('fold and sort tags and drop weight-0 ones, so all-zero weights are no authority', () => {
    const zero = authorityWeightsSchema.parse({ pinnedBoost: 0, tagWeights: { Billing: 0 } });
    expect(zero).toEqual({ pinnedBoost: 0, tagWeights: {} });
    expect(hasAuthority(zero)).toBe(false);
    const some = authorityWeightsSchema.parse({ tagWeights: { Zeta: 1, alpha: 0.5 } });
    expect(Object.entries(some.tagWeights)).toEqual([
      ['alpha', 0.5],
      ['zeta', 1],
    ]);
    expect(hasAuthority(some)).toBe(true);
  });

  it('refuse more than 64 weighted tags and unknown keys', () => {
    const tagWeights = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`t${i}`, 1]));
    expect(authorityWeightsSchema.safeParse({ tagWeights }).error?.issues[0]?.message).toBe(
      'tagWeights must name at most 64 tags',
    );
    expect(authorityWeightsSchema.safeParse({ pinned: 1 }).success).toBe(false);
  });
});

describe('authorityAdjustment', () => {
  const weights = authorityWeightsSchema.parse({ pinnedBoost: 0.5, tagWeights: { billing: 0.3, urgent: 2 } });

  it('adds the pinned boost to the largest weight among the entry’s tags', () => {
    expect(authorityAdjustment(weights, { pinned: true, tags: ['billing', 'urgent', 'x'] }, 0.02)).toEqual({
      fusedScore: 0.02,
      boost: 2.5,
      pinnedBoost: 0.5,
      tag: 'urgent',
      tagWeight: 2,
    });
    expect(authorityAdjustment(weights, { pinned: false, tags: ['x'] }, 0.02)).toEqual({
      fusedScore: 0.02,
      boost: 0,
      pinnedBoost: 0,
      tag: null,
      tagWeight: 0,
    });
  });

  it('caps the boost at 10', () => {
    const most = authorityWeightsSchema.parse({ pinnedBoost: 10, tagWeights: { billing: 10 } });
    expect(authorityAdjustment(most, { pinned: true, tags: ['billing'] }, 1).boost).toBe(10);
  });
});
