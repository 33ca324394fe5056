import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

type Hit = ReturnType<RetrievalPolicy['fuse']>[number];

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
  fuse: (channels, limit, toHit) => {
    const byId = new Map<string, Hit>();
    for (const channel of ['fts', 'vector'] as const) {
      for (const candidate of channels[channel] ?? []) {
        const id = candidate.version.entryVersionId;
        const hit = byId.get(id) ?? {
          ...toHit(candidate),
          score: 0,
          matchedBy: [],
          channelRanks: {},
          channelScores: {},
        };
        hit.score += 1 / (60 + candidate.rank);
        hit.matchedBy.push(channel);
        hit.channelRanks[channel] = candidate.rank;
        hit.channelScores[channel] = candidate.score;
        byId.set(id, hit);
      }
    }
    return [...byId.values()]
      .sort((a, b) => b.score - a.score || (a.citation.entryId < b.citation.entryId ? -1 : 1))
      .slice(0, limit);
  },
};
