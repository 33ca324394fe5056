import type { RelevanceScorer } from '@powercontext/inference';
import {
  assertRerankBounds,
  coarseFallbackRanks,
  type MemoryHit,
  type MemoryRerankDecision,
  type MemoryReranker,
  type RerankOptions,
} from '@powercontext/memory-core';
import { CROSS_ENCODER_DOCUMENT_BUDGET_BYTES, CROSS_ENCODER_POLICY_ID } from './policy.js';
import { scoresFromResults } from './scores-from-results.js';
import { truncateUtf8 } from './truncate-utf8.js';

export interface CrossEncoderRerankerOptions {
  /** The rerank model adapter; it owns timeouts, retries and the answer's shape. */
  scorer: RelevanceScorer;
  /**
   * Candidates scoring below this are not selected. Scores are on the model's own scale, so the value
   * belongs to the model. Default: none (the top `limit` by score are selected).
   */
  minScore?: number;
}

/**
 * The cross-encoder reranker. Per rerank: check the bounds (no model call when they fail), send one
 * scoring request with all n candidates, and require a finite score for every candidate exactly once
 * (otherwise `inference_invalid_output`, which the stage's failure policy handles). Selection: the
 * candidates by score descending, ties by coarse rank, those under `minScore` left out, at most
 * `limit`. When none is left, coarse ranks 1..min(limit, n) with `usedFallback`.
 *
 * Only ranks leave the adapter: the scores stay here, so callers cannot mistake one model's scale for
 * another's. Usage: one call, the requests sent, the documents sent, tokens when the endpoint reports them.
 */
export function createCrossEncoderReranker(options: CrossEncoderRerankerOptions): MemoryReranker {
  const { scorer, minScore } = options;
  if (minScore !== undefined && !Number.isFinite(minScore)) {
    throw new RangeError(`minScore must be a finite number, got ${minScore}`);
  }
  return {
    policyId: CROSS_ENCODER_POLICY_ID,
    modelId: scorer.modelId,
    async rerank(
      normalizedQuery: string,
      candidates: readonly MemoryHit[],
      limit: number,
      rerankOptions?: RerankOptions,
    ): Promise<MemoryRerankDecision> {
      assertRerankBounds(candidates.length, limit);
      const truncatedRanks: number[] = [];
      const documents = candidates.map((candidate, index) => {
        const cut = truncateUtf8(candidate.text, CROSS_ENCODER_DOCUMENT_BUDGET_BYTES);
        if (cut.truncated) truncatedRanks.push(index + 1);
        return cut.text;
      });
      const { results, usage } = await scorer.score({
        query: normalizedQuery,
        documents,
        ...(rerankOptions?.signal ? { signal: rerankOptions.signal } : {}),
      });
      const scores = scoresFromResults(results, candidates.length, usage);
      const qualifying = scores
        .map((score, index) => ({ score, rank: index + 1 }))
        .filter(({ score }) => minScore === undefined || score >= minScore)
        .sort((a, b) => b.score - a.score || a.rank - b.rank);
      const usedFallback = qualifying.length === 0;
      return {
        selectedRanks: usedFallback
          ? coarseFallbackRanks(candidates.length, limit)
          : qualifying.slice(0, limit).map(({ rank }) => rank),
        usage: { ...usage },
        discardedRankCount: 0,
        usedFallback,
        ignoredAfterLimitCount: Math.max(0, qualifying.length - limit),
        truncatedRanks,
      };
    },
  };
}
