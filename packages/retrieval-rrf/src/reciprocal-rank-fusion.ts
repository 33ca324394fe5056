import type { Channel, ChannelCandidate, FusedCandidate } from '@powercontext/memory-core';

export const RRF_K = 60;

/** How much each channel's ranks count in the fused score; RFC 0080's RRF counts both fully. */
export type ChannelWeights = Readonly<Record<Channel, number>>;
export const EQUAL_CHANNEL_WEIGHTS: ChannelWeights = Object.freeze({ fts: 1, vector: 1 });

/**
 * Reciprocal Rank Fusion: score = sum over channels of weight / (k + rank). Ties are broken by
 * identity (entry id, then entry version id; every candidate of one search is of one scope, so of one
 * artifact), so equal inputs always give the same order.
 */
export function fuseReciprocalRank(
  channels: Partial<Record<Channel, readonly ChannelCandidate[]>>,
  limit: number,
  k: number = RRF_K,
  weights: ChannelWeights = EQUAL_CHANNEL_WEIGHTS,
): FusedCandidate[] {
  const fused = new Map<string, FusedCandidate>();
  for (const channel of ['fts', 'vector'] as const) {
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
      const contribution = weights[channel] / (k + candidate.rank);
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
