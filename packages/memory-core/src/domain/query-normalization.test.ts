import { describe, expect, it } from 'vitest';
import { LEXICAL_QUERY_MAX_TERMS, lexicalQueryOf, normalizeQuery } from './query-normalization.js';
import { searchRequestSchema } from './search.js';

describe('normalizeQuery', () => {
  it('applies NFKC, trims and collapses white space runs', () => {
    expect(normalizeQuery('  Ｃａｆé\u00a0\u00a0ﬁle \n\t done ')).toBe('Café file done');
  });
  it('applies the length rule after normalization', () => {
    const padded = `${' '.repeat(100)}${'a'.repeat(8192)}${' '.repeat(100)}`;
    expect(searchRequestSchema.safeParse({ query: padded }).success).toBe(true);
    expect(searchRequestSchema.safeParse({ query: 'a'.repeat(8193) }).success).toBe(false);
    expect(searchRequestSchema.parse({ query: 'x' })).toEqual({ query: 'x', limit: 10, mode: 'auto' });
  });
});

describe('lexicalQueryOf', () => {
  it('keeps a question within the cap unchanged', () => {
    const question = 'What do we need to tell the restaurant about food? Food, food, FOOD.';
    expect(lexicalQueryOf(question)).toBe(question);
  });

  it(`cuts a query before its ${LEXICAL_QUERY_MAX_TERMS + 1}th distinct word, repeats not counted`, () => {
    const words = Array.from({ length: 1_500 }, (_, index) => `w${index}`);
    const query = words.map((word, index) => (index % 3 === 0 ? `${word} W0` : word)).join(' ');
    const cut = lexicalQueryOf(query);
    const distinct = new Set(cut.toLowerCase().match(/[\p{L}\p{N}]+/gu));
    expect(distinct.size).toBe(LEXICAL_QUERY_MAX_TERMS);
    expect(query.startsWith(cut)).toBe(true);
    expect(cut).toMatch(new RegExp(`\\bw${LEXICAL_QUERY_MAX_TERMS - 1}( W0)?$`, 'u'));
    expect(query.slice(cut.length).trimStart()).toMatch(new RegExp(`^w${LEXICAL_QUERY_MAX_TERMS}\\b`, 'u'));
  });
});
