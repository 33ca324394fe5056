export interface RankSelection {
  selectedRanks: number[];
  /** Duplicates and ranks outside 1..n. */
  discardedRankCount: number;
  /** Valid ranks after the limit-th valid one; ignored. */
  ignoredAfterLimitCount: number;
  usedFallback: boolean;
}

/** Coarse ranks 1..min(limit, n): the one fallback every policy uses. */
export function coarseFallbackRanks(candidateCount: number, limit: number): number[] {
  return Array.from({ length: Math.min(limit, candidateCount) }, (_, index) => index + 1);
}

/**
 * Normalizes a model's ranks as RFC 0080 defines it. Walk in order, keep the first occurrence of each
 * rank in 1..n, count duplicates and out-of-range ranks as discarded, and stop at the limit-th valid
 * rank (later ranks are counted as ignored). When no valid rank remains, fall back to coarse ranks
 * 1..min(limit, n). A sparse selection is never padded: padding would restore rejected candidates.
 */
export function selectRanks(ranks: readonly number[], candidateCount: number, limit: number): RankSelection {
  const selected: number[] = [];
  const seen = new Set<number>();
  let discardedRankCount = 0;
  let ignoredAfterLimitCount = 0;
  for (const rank of ranks) {
    const valid = Number.isInteger(rank) && rank >= 1 && rank <= candidateCount && !seen.has(rank);
    if (!valid) {
      discardedRankCount += 1;
      continue;
    }
    seen.add(rank);
    if (selected.length >= limit) ignoredAfterLimitCount += 1;
    else selected.push(rank);
  }
  if (selected.length === 0) {
    return {
      selectedRanks: coarseFallbackRanks(candidateCount, limit),
      discardedRankCount,
      ignoredAfterLimitCount,
      usedFallback: true,
    };
  }
  return { selectedRanks: selected, discardedRankCount, ignoredAfterLimitCount, usedFallback: false };
}
