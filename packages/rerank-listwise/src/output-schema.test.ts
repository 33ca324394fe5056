import { describe, expect, it } from 'vitest';
import { listwiseOutputSchema } from './output-schema.js';

describe('listwiseOutputSchema', () => {
  it.each([
    ['a rank given as a string', { ranks: ['1'] }],
    ['a fractional rank', { ranks: [1.5] }],
    ['a nested list', { ranks: [[1]] }],
    ['an extra key', { ranks: [1], extra: 1 }],
    ['a bare list', [1, 2]],
    ['a missing ranks key', {}],
    ['a non-finite rank', { ranks: [Number.POSITIVE_INFINITY] }],
    ['null', null],
  ])('rejects %s', (_label, value) => {
    expect(listwiseOutputSchema.safeParse(value).success).toBe(false);
  });

  it('accepts a list of integers, kept in order', () => {
    expect(listwiseOutputSchema.parse({ ranks: [2, 1] })).toEqual({ ranks: [2, 1] });
  });

  it('accepts an empty list and out-of-range integers (normalization judges those)', () => {
    expect(listwiseOutputSchema.parse({ ranks: [] })).toEqual({ ranks: [] });
    expect(listwiseOutputSchema.parse({ ranks: [0, -3, 99] })).toEqual({ ranks: [0, -3, 99] });
  });
});
