import { describe, expect, it } from 'vitest';
import { ENTRY_WORDS, generateCorpus, generateQueries, mulberry32, QUERY_WORDS } from './synthetic-corpus.js';

const words = (text: string) => text.split(/\s+/).filter((word) => word !== '');

describe('mulberry32', () => {
  it('repeats its sequence for a seed and stays within [0, 1)', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const values = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(values);
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(mulberry32(8)()).not.toBe(mulberry32(7)());
  });
});

describe('generateCorpus', () => {
  const options = { seed: 42, entries: 2000, scopes: 10 };

  it('is deterministic for a seed and different for another seed', () => {
    const first = generateCorpus(options);
    expect(generateCorpus(options)).toEqual(first);
    const other = generateCorpus({ ...options, seed: 43 });
    expect(other).not.toEqual(first);
    expect(other.filter((entry, index) => entry.text === first[index]!.text)).toHaveLength(0);
  });

  it('writes chat sentences of 8-40 words, spread evenly over the scopes, without duplicates', () => {
    const entries = generateCorpus(options);
    expect(entries).toHaveLength(2000);
    const lengths = entries.map((entry) => words(entry.text).length);
    expect(Math.min(...lengths)).toBe(ENTRY_WORDS.min);
    expect(Math.max(...lengths)).toBe(ENTRY_WORDS.max);
    expect(entries.every((entry) => /^[A-Z][a-z]+: \S.*[.?!]$/.test(entry.text))).toBe(true);
    const perScope = new Map<number, number>();
    for (const entry of entries) perScope.set(entry.scope, (perScope.get(entry.scope) ?? 0) + 1);
    expect([...perScope.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(perScope.values())).toEqual(new Set([200]));
    expect(new Set(entries.map((entry) => entry.text)).size).toBe(2000);
  });

  it('mixes common words, pseudo-words, names and numbers with a skewed distribution', () => {
    const counts = new Map<string, number>();
    for (const entry of generateCorpus(options)) {
      for (const word of words(entry.text.toLowerCase().replace(/[^\p{L}\p{N}'\s]/gu, ''))) {
        counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
    const ranked = [...counts.values()].sort((a, b) => b - a);
    expect(counts.size).toBeGreaterThan(1500);
    expect(ranked[0]!).toBeGreaterThan(20 * ranked[99]!);
    expect([...counts.keys()].some((word) => /^\d+$/.test(word))).toBe(true);
    expect(counts.has('the')).toBe(true);
  });
});

describe('generateQueries', () => {
  const entries = generateCorpus({ seed: 42, entries: 500, scopes: 5 });
  const options = { seed: 42, count: 220, scopes: 5 };

  it('is deterministic for a seed and different for another seed', () => {
    const first = generateQueries(options, entries);
    expect(generateQueries(options, entries)).toEqual(first);
    expect(generateQueries({ ...options, seed: 1 }, entries)).not.toEqual(first);
  });

  it('asks 3-10 words round-robin over scopes, about half taken from an entry of that scope', () => {
    const queries = generateQueries(options, entries);
    for (const [index, query] of queries.entries()) {
      expect(query.scope).toBe(index % 5);
      const length = words(query.text).length;
      expect(length).toBeGreaterThanOrEqual(QUERY_WORDS.min);
      expect(length).toBeLessThanOrEqual(QUERY_WORDS.max);
    }
    const fromEntries = queries.filter((query) => query.fromEntry);
    expect(fromEntries.length).toBeGreaterThan(70);
    expect(fromEntries.length).toBeLessThan(150);
    for (const query of fromEntries) {
      const source = entries
        .filter((entry) => entry.scope === query.scope)
        .map((entry) => entry.text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ''));
      const found = source.some((text) => words(query.text).every((word) => text.includes(word)));
      expect(found, query.text).toBe(true);
    }
  });
});
