/**
 * The p-th percentile (0..100) of the samples, interpolating linearly between the two closest ranks
 * (the default of numpy and of most spreadsheets): position (n - 1) * p / 100 in the sorted samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const position = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  return low + (sorted[upper]! - low) * (position - lower);
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError('mean of no samples');
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

export interface LatencySummary {
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_ms: number;
}

/** p50/p95/p99/mean of latencies in milliseconds, rounded to microseconds. */
export function summarizeLatencies(milliseconds: readonly number[]): LatencySummary {
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    p50_ms: round(percentile(milliseconds, 50)),
    p95_ms: round(percentile(milliseconds, 95)),
    p99_ms: round(percentile(milliseconds, 99)),
    mean_ms: round(mean(milliseconds)),
  };
}
