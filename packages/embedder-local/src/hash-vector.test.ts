import { describe, expect, it } from 'vitest';
import { fnv1a32 } from './fnv1a.js';
import { hashVector } from './hash-vector.js';
import { wordTokens } from './word-tokens.js';

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes of non-ASCII text', () => {
    expect(fnv1a32('é')).not.toBe(fnv1a32('e'));
  });
});

describe('wordTokens', () => {
  it('lower-cases, applies NFKC, splits on punctuation and drops stop words', () => {
    expect(wordTokens("It's Caroline's new ＰＯＴＴＥＲＹ class—in 2023!")).toEqual([
      'caroline',
      'new',
      'pottery',
      'class',
      '2023',
    ]);
  });

  it('keeps combining marks inside words', () => {
    expect(wordTokens('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
  });
});

describe('hashVector', () => {
  const dimension = 4096;
  // Mirrors the feature keys of hash-vector.ts to look at single slots.
  const slotOf = (feature: string) => fnv1a32(feature) % dimension;
  const wordSlot = (word: string) => slotOf(`w\u0001${word}`);
  const trigramSlot = (trigram: string) => slotOf(`c\u0001${trigram}`);

  it('weights a repeated word sublinearly: 1 + ln(tf)', () => {
    const vector = hashVector('zebra zebra zebra lion', dimension);
    const zebra = Math.abs(vector[wordSlot('zebra')]!);
    const lion = Math.abs(vector[wordSlot('lion')]!);
    expect(zebra / lion).toBeCloseTo(1 + Math.log(3), 10);
  });

  it('weights a whole word above each of its boundary-marked trigrams', () => {
    const vector = hashVector('zebra', dimension);
    const word = Math.abs(vector[wordSlot('zebra')]!);
    const start = Math.abs(vector[trigramSlot('\u0002ze')]!);
    const end = Math.abs(vector[trigramSlot('ra\u0003')]!);
    expect(start).toBeGreaterThan(0);
    expect(word / start).toBeCloseTo(1 / 0.5, 10);
    expect(word / end).toBeCloseTo(1 / 0.5, 10);
  });

  it('connects word forms through shared trigrams, but less than an identical word', () => {
    const a = hashVector('lighthouse', dimension);
    const b = hashVector('lighthouses', dimension);
    const dot = a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);
    expect(dot).toBeGreaterThan(0.2);
    expect(dot).toBeLessThan(0.8);
  });

  it('puts signed values into the slots (feature hashing with a sign bit)', () => {
    const vector = hashVector('one two three four five six seven eight nine ten eleven twelve', dimension);
    expect(vector.some((value) => value > 0)).toBe(true);
    expect(vector.some((value) => value < 0)).toBe(true);
  });
});
