import type { StructuredGenerator } from '@powercontext/inference';
import {
  assertRerankBounds,
  type MemoryHit,
  type MemoryRerankDecision,
  type MemoryReranker,
  type RerankOptions,
  selectRanks,
} from '@powercontext/memory-core';
import { buildListwisePrompt } from './listwise-prompt.js';
import { listwiseOutputSchema } from './output-schema.js';
import { LISTWISE_POLICY_ID, LISTWISE_SYSTEM_PROMPT } from './policy.js';

export interface ListwiseRerankerOptions {
  /** The generation model adapter; it owns timeouts, retries and output validation. */
  generator: StructuredGenerator;
}

/**
 * The RFC 0080 listwise reranker. Per rerank: check the bounds (no model call when they fail), send
 * exactly one structured generation request, and normalize its ranks with memory-core's `selectRanks`.
 * Generator errors (timeout, unavailable, invalid output) propagate unchanged: this policy is fail-closed,
 * and only a validated answer without any usable rank falls back to coarse ranks.
 */
export function createListwiseReranker(options: ListwiseRerankerOptions): MemoryReranker {
  const { generator } = options;
  return {
    policyId: LISTWISE_POLICY_ID,
    async rerank(
      normalizedQuery: string,
      candidates: readonly MemoryHit[],
      limit: number,
      rerankOptions?: RerankOptions,
    ): Promise<MemoryRerankDecision> {
      assertRerankBounds(candidates.length, limit);
      const { prompt, truncatedRanks } = buildListwisePrompt(normalizedQuery, candidates, limit);
      const { output, usage } = await generator.generate({
        system: LISTWISE_SYSTEM_PROMPT,
        prompt,
        schema: listwiseOutputSchema,
        signal: rerankOptions?.signal,
      });
      const selection = selectRanks(output.ranks, candidates.length, limit);
      return {
        selectedRanks: selection.selectedRanks,
        usage,
        discardedRankCount: selection.discardedRankCount,
        usedFallback: selection.usedFallback,
        ignoredAfterLimitCount: selection.ignoredAfterLimitCount,
        truncatedRanks,
      };
    },
  };
}
