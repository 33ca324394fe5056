import type { ChannelCandidate, ChannelName, FusedCandidate } from '@powercontext/memory-core';

export const RRF_K = 60;

/** How much each channel's ranks count in the fused score; RFC 0080's RRF counts both fully. */
export type ChannelWeights = Readonly<Partial<Record<ChannelName, number>>>;
export const EQUAL_CHANNEL_WEIGHTS: ChannelWeights = Object.freeze({ fts: 1, vector: 1 });

/**
 * Reciprocal Rank Fusion over N channel lists (RFC 0013): score = sum over channels of
 * weight / (k + rank), added in `order` (the policy's fusion order; by default the order of `weights`).
 * With the two lists of RFC 0002 (fts, then vector) this is the two-channel fusion it always was, to
 * the bit: the same sums in the same order. Ties are broken by identity (entry id, then entry version
 * id; every candidate of one search is of one scope, so of one artifact), so equal inputs always give
 * the same order. A non-empty list of a channel outside `order`, or without a weight, is an error.
 */
export function fuseReciprocalRank(
  channels: Readonly<Partial<Record<ChannelName, readonly ChannelCandidate[]>>>,
  limit: number,
  k: number = RRF_K,
  weights: ChannelWeights = EQUAL_CHANNEL_WEIGHTS,
  order: readonly ChannelName[] = Object.keys(weights),
): FusedCandidate[] {
  for (const [channel, list] of Object.entries(channels)) {
    if (list && list.length > 0 && (!order.includes(channel) || weights[channel] === undefined)) {
      throw new Error(`no RRF weight for the channel "${channel}"`);
    }
  }
  const fused = new Map<string, FusedCandidate>();
  for (const channel of order) {
    const weight = weights[channel] ?? 0;
    for (const candidate of channels[channel] ?? []) {
      const id = candidate.entryVersionId;
      const entry = fused.get(id) ?? {
        entryId: candidate.entryId,
        entryVersionId: id,
        score: 0,
        matchedBy: [],
        channelRanks: {},
        channelScores: {},
        channelContributions: {},
      };
      const contribution = weight / (k + candidate.rank);
      entry.score += contribution;
      entry.channelContributions![channel] = contribution;
      entry.matchedBy.push(channel);
      entry.channelRanks[channel] = candidate.rank;
      entry.channelScores[channel] = candidate.score;
      fused.set(id, entry);
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || compareIdentity(a, b)).slice(0, limit);
}

function compareIdentity(a: FusedCandidate, b: FusedCandidate): number {
  return compare(a.entryId, b.entryId) || compare(a.entryVersionId, b.entryVersionId);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
