import MiniSearch from 'minisearch';
import { normalizeEnglishTerm, tokenizeEnglish } from './english-analyzer.js';
import type { PeerDocument, PeerSearchHit, PeerSystem } from './peer-system.js';

interface IndexedUnit {
  unitId: string;
  text: string;
}

/**
 * MiniSearch 7 over the unit texts, set up the way its documentation suggests for English full text:
 * one indexed field, a custom tokenizer and a `processTerm` that lower-cases, drops stop words and
 * stems (the same functions run on documents and queries). Scoring is MiniSearch's default, BM25+.
 *
 * Queries are OR-combined (a question rarely shares all its words with the evidence). Prefix and
 * fuzzy matching stay off: every system in the comparison matches whole (stemmed) words, so the
 * peers differ in ranking, not in how loosely they match.
 */
export function createMiniSearchPeer(): PeerSystem {
  const index = new MiniSearch<IndexedUnit>({
    idField: 'unitId',
    fields: ['text'],
    storeFields: [],
    tokenize: tokenizeEnglish,
    processTerm: normalizeEnglishTerm,
    searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
  });

  return {
    system: 'minisearch',
    mode: 'fts',
    async index(units: readonly PeerDocument[]): Promise<void> {
      index.addAll(units.map((unit) => ({ unitId: unit.unitId, text: unit.text })));
    },
    async search(query: string, k: number): Promise<PeerSearchHit[]> {
      if (k <= 0) return [];
      return index
        .search(query)
        .slice(0, k)
        .map((result) => ({ unitId: String(result.id) }));
    },
    async close(): Promise<void> {
      index.removeAll();
    },
  };
}
