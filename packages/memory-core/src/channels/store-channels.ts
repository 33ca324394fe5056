import { lexicalQueryOf } from '../domain/query-normalization.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import type { ChannelQuery, SearchChannel } from '../ports/search-channel.port.js';

/**
 * The lexical channel (`fts`): BM25 over the store's lexical projections at the revision (RFC 0002,
 * RFC 0007), on the query's first LEXICAL_QUERY_MAX_TERMS distinct words. It reports the query's
 * distinct terms for the term admission rule, and explains which terms a hit matched. Several scopes
 * are searched in one call of the store's `lexicalSearchScopes` when it has it.
 */
export function createLexicalChannel(store: MemoryStore, bm25: Bm25Parameters): SearchChannel {
  const lexicalQuery = ({ text, limit, filter }: Omit<ChannelQuery, 'scopeId' | 'revision'>) => ({
    query: lexicalQueryOf(text),
    limit,
    bm25,
    ...(filter ? { filter } : {}),
  });
  return {
    name: 'fts',
    id: `powercontext.channel.fts.v1(k1=${bm25.k1},b=${bm25.b},delta=${bm25.delta})`,
    needs: 'text',
    filters: true,
    async search(query) {
      const { scopeId, revision } = query;
      const { candidates, queryTermCount } = await store.lexicalSearch({
        scopeId,
        revision,
        ...lexicalQuery(query),
      });
      return { candidates, queryTermCount };
    },
    async searchScopes(query, scopes) {
      const results = store.lexicalSearchScopes
        ? await store.lexicalSearchScopes(lexicalQuery(query), scopes)
        : await Promise.all(
            scopes.map(({ scopeId, revision }) =>
              store.lexicalSearch({ scopeId, revision, ...lexicalQuery(query) }),
            ),
          );
      return results.map(({ candidates, queryTermCount }) => ({ candidates, queryTermCount }));
    },
    explainTerms: ({ scopeId, revision, text }, entryVersionIds) =>
      store.explainLexicalMatches({ scopeId, revision, query: lexicalQueryOf(text), entryVersionIds }),
  };
}

/**
 * The vector channel (`vector`): cosine between the query's vector and the active versions' vectors of
 * the same profile at the revision. Its candidates are admitted from the profile's `minCosine` up.
 * Several scopes are searched in one call of the store's `vectorSearchScopes` when it has it.
 */
export function createVectorChannel(store: MemoryStore): SearchChannel {
  const vectorQuery = ({ embedding, limit, filter }: Omit<ChannelQuery, 'scopeId' | 'revision'>) => {
    if (!embedding) throw new Error('the vector channel needs the query embedding');
    return {
      query: {
        profileId: embedding.profile.id,
        vector: embedding.vector,
        limit,
        ...(filter ? { filter } : {}),
      },
      minScore: embedding.profile.minCosine,
    };
  };
  return {
    name: 'vector',
    id: 'powercontext.channel.vector.v1',
    needs: 'embedding',
    filters: true,
    async search(channelQuery) {
      const { query, minScore } = vectorQuery(channelQuery);
      const { scopeId, revision } = channelQuery;
      return { candidates: await store.vectorSearch({ scopeId, revision, ...query }), minScore };
    },
    async searchScopes(channelQuery, scopes) {
      const { query, minScore } = vectorQuery(channelQuery);
      const lists = store.vectorSearchScopes
        ? await store.vectorSearchScopes(query, scopes)
        : await Promise.all(
            scopes.map(({ scopeId, revision }) => store.vectorSearch({ scopeId, revision, ...query })),
          );
      return lists.map((candidates) => ({ candidates, minScore }));
    },
  };
}
