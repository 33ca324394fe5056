import type { MemoryHit } from '../domain/search.js';

/**
 * What a rerank cost. `requests` are HTTP requests actually sent, `calls` logical model operations.
 * Token counts stay undefined when unknown (never 0). Same shape as the inference package's usage.
 */
export interface RerankUsage {
  requests: number;
  calls: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** Documents sent for scoring (rerank endpoints bill per document); absent when the policy sends none. */
  documents?: number;
}

/** A reranker's answer: 1-based positions into the coarse pool, best first. Never ids, scores or text. */
export interface MemoryRerankDecision {
  selectedRanks: number[];
  usage: RerankUsage;
  /** Duplicate and out-of-range ranks the policy dropped from the model's output. */
  discardedRankCount: number;
  /** True only when a validated output held no usable rank and coarse ranks 1..min(limit, n) were used. */
  usedFallback: boolean;
  /** Valid ranks that came after the limit-th one and were ignored. */
  ignoredAfterLimitCount?: number;
  /** Ranks whose text was cut to the policy's per-candidate budget before it reached the model. */
  truncatedRanks?: number[];
}

export interface RerankOptions {
  /** Aborted by the caller's cancellation or the stage's deadline. */
  signal?: AbortSignal;
}

/**
 * Selects a sparse, ordered subset of the coarse pool. `candidates` are the coarse hits in fused order
 * (rank = index + 1); `limit` is the caller's final limit, not the pool size.
 */
export interface MemoryReranker {
  readonly policyId: string;
  /** The model behind the policy (e.g. `openai-compatible:bge-reranker-v2-m3`), when the reranker knows it. */
  readonly modelId?: string;
  rerank(
    normalizedQuery: string,
    candidates: readonly MemoryHit[],
    limit: number,
    options?: RerankOptions,
  ): Promise<MemoryRerankDecision>;
}
