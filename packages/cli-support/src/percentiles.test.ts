import { describe, expect, it } from 'vitest';
import { mean, percentile, summarizeLatencies } from './percentiles.js';

describe('percentile', () => {
  it('interpolates linearly between the closest ranks', () => {
    const oneToHundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(oneToHundred, 50)).toBeCloseTo(50.5, 10);
    expect(percentile(oneToHundred, 95)).toBeCloseTo(95.05, 10);
    expect(percentile(oneToHundred, 99)).toBeCloseTo(99.01, 10);
    expect(percentile([10, 20, 30, 40], 50)).toBe(25);
    expect(percentile([10, 20, 30, 40], 25)).toBeCloseTo(17.5, 10);
  });

  it('does not depend on the order of the samples and does not sort them in place', () => {
    const samples = [5, 1, 4, 2, 3];
    expect(percentile(samples, 50)).toBe(3);
    expect(samples).toEqual([5, 1, 4, 2, 3]);
  });

  it('returns the extremes at 0 and 100 and the only value of a single sample', () => {
    expect(percentile([3, 9, 1], 0)).toBe(1);
    expect(percentile([3, 9, 1], 100)).toBe(9);
    expect(percentile([7], 99)).toBe(7);
  });

  it('rejects empty samples and percentiles outside 0..100', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
    expect(() => mean([])).toThrow(RangeError);
  });
});

describe('summarizeLatencies', () => {
  it('reports p50, p95, p99 and mean rounded to microseconds', () => {
    expect(mean([1, 2, 3, 10])).toBe(4);
    expect(summarizeLatencies([1, 2, 3, 4, 100])).toEqual({
      p50_ms: 3,
      p95_ms: 80.8,
      p99_ms: 96.16,
      mean_ms: 22,
    });
    expect(summarizeLatencies([1 / 3, 1 / 3]).mean_ms).toBe(0.333);
  });
});
