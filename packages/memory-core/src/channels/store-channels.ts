import { lexicalQueryOf } from '../domain/query-normalization.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import type { SearchChannel } from '../ports/search-channel.port.js';

/**
 * The lexical channel (`fts`): BM25 over the store's lexical projections at the revision (RFC 0002,
 * RFC 0007), on the query's first LEXICAL_QUERY_MAX_TERMS distinct words. It reports the query's
 * distinct terms for the term admission rule, and explains which terms a hit matched.
 */
export function createLexicalChannel(store: MemoryStore, bm25: Bm25Parameters): SearchChannel {
  return {
    name: 'fts',
    id: `powercontext.channel.fts.v1(k1=${bm25.k1},b=${bm25.b},delta=${bm25.delta})`,
    needs: 'text',
    async search({ scopeId, revision, text, limit }) {
      const { candidates, queryTermCount } = await store.lexicalSearch({
        scopeId,
        revision,
        query: lexicalQueryOf(text),
        limit,
        bm25,
      });
      return { candidates, queryTermCount };
    },
    explainTerms: ({ scopeId, revision, text }, entryVersionIds) =>
      store.explainLexicalMatches({ scopeId, revision, query: lexicalQueryOf(text), entryVersionIds }),
  };
}

/**
 * The vector channel (`vector`): cosine between the query's vector and the active versions' vectors of
 * the same profile at the revision. Its candidates are admitted from the profile's `minCosine` up.
 */
export function createVectorChannel(store: MemoryStore): SearchChannel {
  return {
    name: 'vector',
    id: 'powercontext.channel.vector.v1',
    needs: 'embedding',
    async search({ scopeId, revision, embedding, limit }) {
      if (!embedding) throw new Error('the vector channel needs the query embedding');
      const candidates = await store.vectorSearch({
        scopeId,
        revision,
        profileId: embedding.profile.id,
        vector: embedding.vector,
        limit,
      });
      return { candidates, minScore: embedding.profile.minCosine };
    },
  };
}
