import { RerankerDefectError } from '../errors/reranker-defect-error.js';
import type { MemoryRerankDecision } from '../ports/memory-reranker.port.js';

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

/**
 * The service's check of a reranker's decision: at most min(limit, n) distinct integer ranks, each in
 * 1..n, and sane counters. A violation is a reranker defect and raises; nothing is trimmed silently.
 */
export function validateDecision(
  policyId: string,
  decision: MemoryRerankDecision,
  candidateCount: number,
  limit: number,
): void {
  const fail = (rule: string) => {
    throw new RerankerDefectError(policyId, rule);
  };
  if (!Array.isArray(decision.selectedRanks)) fail('selectedRanks must be an array');
  const ranks = decision.selectedRanks;
  const maximum = Math.min(limit, candidateCount);
  if (ranks.length > maximum) fail(`selected ${ranks.length} ranks, more than min(limit, n) = ${maximum}`);
  if (ranks.length === 0) fail('selected no rank; a policy must fall back to coarse ranks instead');
  const seen = new Set<number>();
  for (const rank of ranks) {
    if (!Number.isInteger(rank) || rank < 1 || rank > candidateCount)
      fail(`rank ${rank} is outside 1..${candidateCount}`);
    if (seen.has(rank)) fail(`rank ${rank} is selected twice`);
    seen.add(rank);
  }
  if (!isCount(decision.discardedRankCount)) fail('discardedRankCount must be a non-negative integer');
  if (typeof decision.usedFallback !== 'boolean') fail('usedFallback must be a boolean');
  if (!isCount(decision.usage?.requests) || !isCount(decision.usage?.calls)) {
    fail('usage.requests and usage.calls must be non-negative integers');
  }
}
