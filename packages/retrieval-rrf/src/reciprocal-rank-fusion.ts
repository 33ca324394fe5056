import type { Channel, ChannelCandidate, MemoryHit } from '@powercontext/memory-core';

export const RRF_K = 60;

type HitBase = Omit<
  MemoryHit,
  'score' | 'matchedBy' | 'channelRanks' | 'channelScores' | 'channelContributions'
>;

/** How much each channel's ranks count in the fused score; RFC 0080's RRF counts both fully. */
export type ChannelWeights = Readonly<Record<Channel, number>>;
export const EQUAL_CHANNEL_WEIGHTS: ChannelWeights = Object.freeze({ fts: 1, vector: 1 });

/**
 * Reciprocal Rank Fusion: score = sum over channels of weight / (k + rank). Ties are broken by
 * identity (artifact id, entry id, entry version id), so equal inputs always give the same order.
 */
export function fuseReciprocalRank(
  channels: Partial<Record<Channel, readonly ChannelCandidate[]>>,
  limit: number,
  toHit: (candidate: ChannelCandidate) => HitBase,
  k: number = RRF_K,
  weights: ChannelWeights = EQUAL_CHANNEL_WEIGHTS,
): MemoryHit[] {
  const fused = new Map<string, MemoryHit>();
  for (const channel of ['fts', 'vector'] as const) {
    for (const candidate of channels[channel] ?? []) {
      const id = candidate.version.entryVersionId;
      const hit = fused.get(id) ?? {
        ...toHit(candidate),
        score: 0,
        matchedBy: [],
        channelRanks: {},
        channelScores: {},
        channelContributions: {},
      };
      const contribution = weights[channel] / (k + candidate.rank);
      hit.score += contribution;
      hit.channelContributions![channel] = contribution;
      hit.matchedBy.push(channel);
      hit.channelRanks[channel] = candidate.rank;
      hit.channelScores[channel] = candidate.score;
      fused.set(id, hit);
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || compareIdentity(a, b)).slice(0, limit);
}

function compareIdentity(a: HitBase, b: HitBase): number {
  return (
    compare(a.citation.artifactId, b.citation.artifactId) ||
    compare(a.citation.entryId, b.citation.entryId) ||
    compare(a.citation.entryVersionId, b.citation.entryVersionId)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
