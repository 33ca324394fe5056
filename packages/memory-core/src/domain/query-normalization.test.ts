import { describe, expect, it } from 'vitest';
import { normalizeQuery } from './query-normalization.js';
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
