import { percentile } from '@powercontext/cli-support';
import type { Category } from './locomo-data.js';
import { type Metrics, meanMetrics, roundMetrics } from './metrics.js';
import type { MeasuredRun, UnmeasuredRun } from './summary-schema.js';

export type RunIdentity = Pick<
  MeasuredRun,
  'system' | 'mode' | 'unit' | 'rerank' | 'top_k' | 'final_k' | 'lexical_context' | 'channels'
>;

export interface RerankUsageTotals {
  requests: number;
  calls: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** Collects one run's per-question metrics, latencies and usage, and reports the averaged run. */
export class RunAccumulator {
  readonly identity: RunIdentity;
  readonly note: string | undefined;
  readonly #final: { category: Category; metrics: Metrics }[] = [];
  readonly #coarse: { category: Category; metrics: Metrics }[] = [];
  readonly #searchMs: number[] = [];
  readonly #rerankMs: number[] = [];
  #usage: RerankUsageTotals | undefined;

  constructor(identity: RunIdentity, note?: string) {
    this.identity = identity;
    this.note = note;
  }

  get label(): string {
    return runLabel(this.identity);
  }

  add(category: Category, final: Metrics, coarse: Metrics): void {
    this.#final.push({ category, metrics: final });
    this.#coarse.push({ category, metrics: coarse });
  }

  addSearchLatency(milliseconds: number): void {
    this.#searchMs.push(milliseconds);
  }

  addRerankLatency(milliseconds: number): void {
    this.#rerankMs.push(milliseconds);
  }

  /** Sums usage; a token count stays undefined until some call reports it. */
  addUsage(usage: RerankUsageTotals): void {
    const total: RerankUsageTotals = this.#usage ?? { requests: 0, calls: 0 };
    total.requests += usage.requests;
    total.calls += usage.calls;
    for (const key of ['inputTokens', 'outputTokens', 'totalTokens'] as const) {
      if (usage[key] !== undefined) total[key] = (total[key] ?? 0) + usage[key];
    }
    this.#usage = total;
  }

  build(): MeasuredRun {
    const final = meanMetrics(this.#final.map((item) => item.metrics)) ?? {};
    const coarse = meanMetrics(this.#coarse.map((item) => item.metrics)) ?? {};
    const latency: NonNullable<MeasuredRun['latency_ms']> = {};
    if (this.#searchMs.length > 0) {
      latency.search_p50 = roundMs(percentile(this.#searchMs, 50));
      latency.search_p95 = roundMs(percentile(this.#searchMs, 95));
    }
    if (this.#rerankMs.length > 0) {
      latency.rerank_p50 = roundMs(percentile(this.#rerankMs, 50));
      latency.rerank_p95 = roundMs(percentile(this.#rerankMs, 95));
    }
    const usage = this.#usage;
    return {
      ...this.identity,
      measured: true,
      questions: this.#final.length,
      final: roundMetrics(final),
      coarse: roundMetrics(coarse),
      by_category: byCategory(this.#final),
      coarse_by_category: byCategory(this.#coarse),
      ...(Object.keys(latency).length > 0 ? { latency_ms: latency } : {}),
      ...(usage
        ? {
            usage: {
              requests: usage.requests,
              calls: usage.calls,
              ...(usage.inputTokens !== undefined ? { input_tokens: usage.inputTokens } : {}),
              ...(usage.outputTokens !== undefined ? { output_tokens: usage.outputTokens } : {}),
              ...(usage.totalTokens !== undefined ? { total_tokens: usage.totalTokens } : {}),
            },
          }
        : {}),
      ...(this.note ? { note: this.note } : {}),
    };
  }
}

export function unmeasuredRun(identity: RunIdentity, reason: string): UnmeasuredRun {
  return { ...identity, measured: false, reason };
}

/** The default channels, which a run's label leaves unsaid. */
const DEFAULT_CHANNELS = 'fts,vector';

export function runLabel(
  identity: Pick<RunIdentity, 'system' | 'mode' | 'rerank' | 'lexical_context' | 'channels'>,
): string {
  const rerank = identity.rerank === 'none' || identity.rerank === 'oracle' ? '' : ` + ${identity.rerank}`;
  const context = identity.lexical_context === 'none' ? ' (no context)' : '';
  const added = (identity.channels ?? DEFAULT_CHANNELS)
    .split(',')
    .filter((name) => !DEFAULT_CHANNELS.split(',').includes(name));
  const channels = added.length === 0 ? '' : ` +${added.join('+')}`;
  return `${identity.system} ${identity.mode}${channels}${rerank}${context}`;
}

function byCategory(items: readonly { category: Category; metrics: Metrics }[]): MeasuredRun['by_category'] {
  const grouped = new Map<Category, Metrics[]>();
  for (const item of items) {
    const list = grouped.get(item.category) ?? [];
    list.push(item.metrics);
    grouped.set(item.category, list);
  }
  const result: MeasuredRun['by_category'] = {};
  for (const category of [...grouped.keys()].sort()) {
    result[category] = roundMetrics(meanMetrics(grouped.get(category)!)!);
  }
  return result;
}

const roundMs = (value: number) => Math.round(value * 1000) / 1000;
