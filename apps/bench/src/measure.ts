import { summarizeLatencies } from '@powercontext/cli-support';
import type { Latency } from './scale-report.js';

export const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** p50/p95/p99/mean of millisecond samples (linear interpolation between closest ranks). */
export function latencyOf(samples: readonly number[]): Latency {
  return summarizeLatencies(samples);
}

/** This process's peak resident set size so far, in MB (maxRSS is reported in KB). */
export function peakRssMb(): number {
  return round(process.resourceUsage().maxRSS / 1024, 1);
}

export const megabytes = (bytes: number) => round(bytes / 2 ** 20, 1);

/** Rate per second of `count` things done in `milliseconds`. */
export const perSecond = (count: number, milliseconds: number) =>
  milliseconds > 0 ? round((count * 1000) / milliseconds, 1) : 0;
