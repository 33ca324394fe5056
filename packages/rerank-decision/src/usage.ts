import type { RerankUsage } from '@powercontext/memory-core';

/**
 * Running usage of one decision rerank. `calls` is counted by the caller (evaluate() calls started);
 * this only sums what the calls report. Token counts stay undefined until some call reports them:
 * unknown is never 0, and a known count plus an unknown one is the known count (a lower bound).
 */
export class UsageTally {
  #requests = 0;
  #inputTokens: number | undefined;
  #outputTokens: number | undefined;
  #totalTokens: number | undefined;

  /** Adds a reported usage; fields that are missing or not non-negative numbers add nothing. */
  add(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const reported = usage as Partial<Record<keyof RerankUsage, unknown>>;
    this.#requests += isCount(reported.requests) ? reported.requests : 0;
    this.#inputTokens = addKnown(this.#inputTokens, reported.inputTokens);
    this.#outputTokens = addKnown(this.#outputTokens, reported.outputTokens);
    this.#totalTokens = addKnown(this.#totalTokens, reported.totalTokens);
  }

  /** The portable usage value; token fields are left out (not set to 0) when nothing reported them. */
  toUsage(calls: number): RerankUsage {
    const usage: RerankUsage = { requests: this.#requests, calls };
    if (this.#inputTokens !== undefined) usage.inputTokens = this.#inputTokens;
    if (this.#outputTokens !== undefined) usage.outputTokens = this.#outputTokens;
    if (this.#totalTokens !== undefined) usage.totalTokens = this.#totalTokens;
    return usage;
  }
}

/** The usage an error carries (adapters attach what a failed call cost), if it has one. */
export function usageOfError(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { usage?: unknown }).usage : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function addKnown(sum: number | undefined, value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return sum;
  return (sum ?? 0) + value;
}
