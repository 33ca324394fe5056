import type { ChannelCandidate, LexicalCandidate } from '@powercontext/memory-core';

/**
 * Distinct query terms a lexical candidate must match: 1 for queries of up to 2 distinct terms,
 * else max(2, ceil(n / 4)).
 */
export function requiredMatchedTerms(queryTermCount: number): number {
  return queryTermCount <= 2 ? 1 : Math.max(2, Math.ceil(queryTermCount / 4));
}

export function admitLexical<Candidate extends ChannelCandidate = LexicalCandidate>(
  candidates: readonly Candidate[],
  queryTermCount: number,
): Candidate[] {
  const required = requiredMatchedTerms(queryTermCount);
  return rerank(candidates.filter((candidate) => (candidate.matchedTerms ?? 0) >= required));
}

/**
 * The lexical candidates `admitLexical` turns away (they match at least one query term, fewer than
 * the rule asks), in the channel's order with ranks renumbered: what a search returns instead of
 * nothing when no candidate met the rule.
 */
export function admitLexicalFallback<Candidate extends ChannelCandidate = LexicalCandidate>(
  candidates: readonly Candidate[],
  queryTermCount: number,
): Candidate[] {
  const required = requiredMatchedTerms(queryTermCount);
  return rerank(
    candidates.filter((candidate) => {
      const matched = candidate.matchedTerms ?? 0;
      return matched >= 1 && matched < required;
    }),
  );
}

/** Keeps vector candidates whose cosine similarity reaches the embedding profile's threshold. */
export function admitVector(candidates: readonly ChannelCandidate[], minCosine: number): ChannelCandidate[] {
  return rerank(candidates.filter((candidate) => candidate.score >= minCosine));
}

/**
 * The admission of a channel without a rule of its own (entity, graph, an application's channel):
 * every candidate, or those reaching the result's `minScore` when the channel sets one.
 */
export function admitChannel(candidates: readonly ChannelCandidate[], minScore?: number): ChannelCandidate[] {
  return minScore === undefined ? rerank(candidates) : admitVector(candidates, minScore);
}

/** Channel ranks are positions among admitted candidates, 1-based, in the channel's order. */
function rerank<T extends ChannelCandidate>(candidates: readonly T[]): T[] {
  return candidates.map((candidate, index) => ({ ...candidate, rank: index + 1 }));
}
