import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { FusedCandidate } from '../domain/search.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

/**
 * A small RRF policy for the core's own tests: memory-core may not import @powercontext/retrieval-rrf,
 * which sits above it. Admits everything the channels return and fuses with k = 60.
 */
export const minimalRrfPolicy: RetrievalPolicy = {
  id: 'test.minimal-rrf.v1',
  bm25: { k1: 1.2, b: 0.75, delta: 0 },
  lexicalProjection: PLAIN_LEXICAL_PROJECTION,
  channelFetchLimit: (limit) => Math.max(4 * limit, 32),
  admitLexical: (candidates) => [...candidates],
  admitVector: (candidates, minCosine) =>
    candidates.filter((c) => c.score >= minCosine && c.score > 0).map((c, i) => ({ ...c, rank: i + 1 })),
  fuse: (channels, limit) => {
    const byId = new Map<string, FusedCandidate>();
    for (const channel of ['fts', 'vector'] as const) {
      for (const candidate of channels[channel] ?? []) {
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
