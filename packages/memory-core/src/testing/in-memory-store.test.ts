import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { InMemoryMemoryStore } from './in-memory-store.js';
import { describeMemoryStoreContract, describeSearchContract } from './index.js';

/** The in-memory fake proves itself against the same suites as the real adapters. */
describeMemoryStoreContract('in-memory', { createStore: async () => new InMemoryMemoryStore() });

// memory-core cannot import retrieval-rrf (it sits above the core); a minimal RRF stands in here.
const minimalPolicy: RetrievalPolicy = {
  id: 'test.minimal-rrf.v1',
  bm25: { k1: 1.2, b: 0.75, delta: 0 },
  channelFetchLimit: (limit) => Math.max(4 * limit, 32),
  admitLexical: (candidates) => [...candidates],
  admitVector: (candidates, minCosine) =>
    candidates.filter((c) => c.score >= minCosine && c.score > 0).map((c, i) => ({ ...c, rank: i + 1 })),
  fuse: (channels, limit, toHit) => {
    const byId = new Map<string, ReturnType<RetrievalPolicy['fuse']>[number]>();
    for (const [channel, list] of Object.entries(channels) as ['fts' | 'vector', typeof channels.fts][]) {
      for (const c of list ?? []) {
        const hit = byId.get(c.version.entryVersionId) ?? {
          ...toHit(c),
          score: 0,
          matchedBy: [],
          channelRanks: {},
          channelScores: {},
        };
        hit.score += 1 / (60 + c.rank);
        hit.matchedBy.push(channel);
        hit.channelRanks[channel] = c.rank;
        hit.channelScores[channel] = c.score;
        byId.set(c.version.entryVersionId, hit);
      }
    }
    return [...byId.values()]
      .sort((a, b) => b.score - a.score || (a.citation.entryId < b.citation.entryId ? -1 : 1))
      .slice(0, limit);
  },
};
describeSearchContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalPolicy,
});
