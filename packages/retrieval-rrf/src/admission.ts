import type { ChannelCandidate, LexicalCandidate } from '@powercontext/memory-core';

/**
 * Distinct query terms a lexical candidate must match: 1 for queries of up to 2 distinct terms,
 * else max(2, ceil(n / 4)).
 */
export function requiredMatchedTerms(queryTermCount: number): number {
  return queryTermCount <= 2 ? 1 : Math.max(2, Math.ceil(queryTermCount / 4));
}

export function admitLexical(
  candidates: readonly LexicalCandidate[],
  queryTermCount: number,
): LexicalCandidate[] {
  const required = requiredMatchedTerms(queryTermCount);
  return rerank(candidates.filter((candidate) => candidate.matchedTerms >= required));
}

/**
 * The lexical candidates `admitLexical` turns away (they match at least one query term, fewer than
 * the rule asks), in the channel's order with ranks renumbered: what a search returns instead of
 * nothing when no candidate met the rule.
 */
export function admitLexicalFallback(
  candidates: readonly LexicalCandidate[],
  queryTermCount: number,
): LexicalCandidate[] {
  const required = requiredMatchedTerms(queryTermCount);
  return rerank(
    candidates.filter((candidate) => candidate.matchedTerms >= 1 && candidate.matchedTerms < required),
  );
}

/** Keeps vector candidates whose cosine similarity reaches the embedding profile's threshold. */
export function admitVector(candidates: readonly ChannelCandidate[], minCosine: number): ChannelCandidate[] {
  return rerank(candidates.filter((candidate) => candidate.score >= minCosine));
}

/** Channel ranks are positions among admitted candidates, 1-based, in the channel's order. */
function rerank<T extends ChannelCandidate>(candidates: readonly T[]): T[] {
  return candidates.map((candidate, index) => ({ ...candidate, rank: index + 1 }));
}
