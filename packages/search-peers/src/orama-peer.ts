import { create, type DefaultTokenizerConfig, insertMultiple, search } from '@orama/orama';
import { stopwords as englishStopWords } from '@orama/stopwords/english';
import type { Embedder } from '@powercontext/memory-core';
import type { PeerDocument, PeerSearchHit, PeerSystem } from './peer-system.js';

/** Name of the vector property in the hybrid schema. */
const EMBEDDING = 'embedding';

/**
 * The tokenizer Orama's documentation recommends for English: its built-in English (Porter)
 * stemmer switched on, and the English list of the companion `@orama/stopwords` package (Orama 3
 * removes no stop words unless given a list). `unitId` is a keyword, not text: kept whole.
 */
function englishTokenizer(): DefaultTokenizerConfig {
  return {
    language: 'english',
    stemming: true,
    stopWords: englishStopWords,
    tokenizeSkipProperties: ['unitId'],
  };
}

/**
 * Orama 3 full text (`fts`): one db per conversation, schema `{ unitId, text }`, searched with
 * Orama's defaults apart from the field list and the limit: BM25, terms OR-combined (the default
 * full-text `threshold` of 1 keeps documents matching any term). Note that Orama's default matching
 * treats every query token as a prefix of indexed tokens (`exact: true` is no way out here: in
 * 3.1 it adds a case-sensitive filter requiring every query word verbatim), so it matches more
 * loosely than the whole-word systems beside it; that is what a user gets, so it stays.
 */
export function createOramaFullTextPeer(): PeerSystem {
  const db = create({
    schema: { unitId: 'string', text: 'string' } as const,
    components: { tokenizer: englishTokenizer() },
  });

  return {
    system: 'orama',
    mode: 'fts',
    async index(units: readonly PeerDocument[]): Promise<void> {
      await insertMultiple(
        db,
        units.map((unit) => ({ unitId: unit.unitId, text: unit.text })),
      );
    },
    async search(query: string, k: number): Promise<PeerSearchHit[]> {
      if (k <= 0) return [];
      const results = await search(db, { term: query, properties: ['text'], limit: k });
      return results.hits.map((hit) => ({ unitId: hit.document.unitId }));
    },
  };
}

/**
 * Orama 3 hybrid (`hybrid`): the full-text db above plus a vector property holding the same vectors
 * the product stores (the given embedder, the product's local embedder in the harness). Each query
 * is embedded with it too and searched with `mode: 'hybrid'`, which min-max normalises the BM25 and
 * cosine scores and adds them with Orama's default weights (0.5 / 0.5).
 *
 * Orama's default vector `similarity` floor is 0.8, a value for neural embeddings. The local
 * embedder is lexical feature hashing whose cosines run far lower, so the floor is the embedder
 * profile's own admission threshold (`minCosine`, 0.05 for the local hash profile), the one the
 * product's vector channel uses.
 */
export function createOramaHybridPeer(embedder: Embedder): PeerSystem {
  const vectorType = `vector[${embedder.profile.dimension}]` as const;
  const db = create({
    schema: { unitId: 'string', text: 'string', [EMBEDDING]: vectorType } as const,
    components: { tokenizer: englishTokenizer() },
  });
  const similarity = embedder.profile.minCosine;

  return {
    system: 'orama',
    mode: 'hybrid',
    async index(units: readonly PeerDocument[]): Promise<void> {
      const vectors = await embedder.embed(units.map((unit) => unit.text));
      await insertMultiple(
        db,
        units.map((unit, i) => ({ unitId: unit.unitId, text: unit.text, [EMBEDDING]: vectors[i] ?? [] })),
      );
    },
    async search(query: string, k: number): Promise<PeerSearchHit[]> {
      if (k <= 0) return [];
      const [vector] = await embedder.embed([query]);
      const results = await search(db, {
        mode: 'hybrid',
        term: query,
        properties: ['text'],
        vector: { value: vector ?? [], property: EMBEDDING },
        similarity,
        limit: k,
      });
      return results.hits.map((hit) => ({ unitId: hit.document.unitId }));
    },
  };
}
