/** RRF's constant for the fusion across scopes, the same k = 60 the channels' fusion uses. */
export const SCOPE_FUSION_K = 60;

/** One item of the fusion across scopes: which list (scope) it came from, its rank there, its score. */
export interface ScopeFused<T> {
  item: T;
  /** The index of its list, i.e. of its scope in the order the scopes were asked in. */
  list: number;
  /** 1-based rank in its own list. */
  rank: number;
  /** 1 / (k + rank). */
  score: number;
}

/**
 * Fuses the ranked lists of several scopes by Reciprocal Rank Fusion (issue 29, "Several scopes"). An
 * entry version lives in one scope, so every item is in exactly one list and its fused score is
 * 1 / (k + its rank in that list): the scopes take turns, rank by rank. Equal fused scores (the same
 * rank in two lists) put the higher score within its own scope first, then the scope asked first.
 */
export function fuseScopes<T extends { score: number }>(
  lists: readonly (readonly T[])[],
  limit: number,
): ScopeFused<T>[] {
  const fused = lists.flatMap((items, list) =>
    items.map((item, index) => ({ item, list, rank: index + 1, score: 1 / (SCOPE_FUSION_K + index + 1) })),
  );
  fused.sort((a, b) => b.score - a.score || b.item.score - a.item.score || a.list - b.list);
  return fused.slice(0, limit);
}
