import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { ChannelName, FusedCandidate } from '../domain/search.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

/**
 * A small RRF policy for the core's own tests: memory-core may not import @powercontext/retrieval-rrf,
 * which sits above it. Fuses `channels` (fts and vector by default) with k = 60 and equal weights;
 * admits what the channels return, except vector candidates below the profile's threshold or at 0.
 */
export function createMinimalRrfPolicy(
  channels: readonly ChannelName[] = ['fts', 'vector'],
): RetrievalPolicy {
  return {
    id: `test.minimal-rrf.v1(${channels.join(',')})`,
    bm25: { k1: 1.2, b: 0.75, delta: 0 },
    lexicalProjection: PLAIN_LEXICAL_PROJECTION,
    channels,
    channelFetchLimit: (limit) => Math.max(4 * limit, 32),
    admit: (channel, { candidates, minScore }) =>
      channel === 'vector'
        ? candidates
            .filter((c) => c.score >= (minScore ?? -Infinity) && c.score > 0)
            .map((c, i) => ({ ...c, rank: i + 1 }))
        : [...candidates],
    fuse: (lists, limit) => {
      const byId = new Map<string, FusedCandidate>();
      for (const channel of channels) {
        for (const candidate of lists[channel] ?? []) {
          const fused = byId.get(candidate.entryVersionId) ?? {
            entryId: candidate.entryId,
            entryVersionId: candidate.entryVersionId,
            score: 0,
            matchedBy: [],
            channelRanks: {},
            channelScores: {},
          };
          fused.score += 1 / (60 + candidate.rank);
          fused.matchedBy.push(channel);
          fused.channelRanks[channel] = candidate.rank;
          fused.channelScores[channel] = candidate.score;
          byId.set(candidate.entryVersionId, fused);
        }
      }
      return [...byId.values()]
        .sort((a, b) => b.score - a.score || (a.entryId < b.entryId ? -1 : 1))
        .slice(0, limit);
    },
  };
}

/** The minimal policy over the two default channels, fts and vector. */
export const minimalRrfPolicy: RetrievalPolicy = createMinimalRrfPolicy();
