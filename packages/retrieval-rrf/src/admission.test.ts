import type { LexicalCandidate } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { admitLexical, admitLexicalFallback, admitVector, requiredMatchedTerms } from './admission.js';

const version = (id: string) => ({ entryId: id, entryVersionId: `${id}-v1` });
const lexical = (id: string, matchedTerms: number, rank: number): LexicalCandidate => ({
  ...version(id),
  rank,
  score: 10 - rank,
  matchedTerms,
});

describe('admission', () => {
  it('needs 1 matched term for queries of up to 2 terms, else max(2, ceil(n/4))', () => {
    expect([0, 1, 2, 3, 4, 8, 9, 12, 13].map(requiredMatchedTerms)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 4]);
  });
  it('drops lexical candidates below the rule and renumbers channel ranks', () => {
    const admitted = admitLexical([lexical('a', 3, 1), lexical('b', 1, 2), lexical('c', 2, 3)], 5);
    expect(admitted.map((c) => [c.entryId, c.rank])).toEqual([
      ['a', 1],
      ['c', 2],
    ]);
  });
  it('offers exactly the candidates the rule turned away as the fallback, in channel order, renumbered', () => {
    const candidates = [lexical('a', 3, 1), lexical('b', 1, 2), lexical('c', 2, 3), lexical('d', 1, 4)];
    expect(admitLexicalFallback(candidates, 5).map((c) => [c.entryId, c.rank])).toEqual([
      ['b', 1],
      ['d', 2],
    ]);
    // Queries of up to 2 terms admit every match: nothing is left for a fallback.
    expect(admitLexicalFallback([lexical('a', 1, 1)], 2)).toEqual([]);
  });
  it('keeps vector candidates at or above the profile threshold', () => {
    const candidates = [0.9, 0.3, 0.29].map((score, i) => ({
      ...version(`v${i}`),
      rank: i + 1,
      score,
    }));
    expect(admitVector(candidates, 0.3).map((c) => c.entryId)).toEqual(['v0', 'v1']);
    expect(admitVector(candidates, 0.05)).toHaveLength(3);
  });
});
