import { describe, expect, it } from 'vitest';
import { bleu1, exactMatch, normalizeAnswer, tokenF1 } from './answer-metrics.js';

describe('normalizeAnswer', () => {
  it('lower-cases, drops punctuation and articles, and collapses spaces', () => {
    expect(normalizeAnswer('  The  Sunrise, over a LAKE! ')).toBe('sunrise over lake');
    expect(normalizeAnswer('7 May 2023')).toBe('7 may 2023');
  });
});

describe('exactMatch', () => {
  it('compares normalized answers', () => {
    expect(exactMatch('The lake sunrise.', 'lake sunrise')).toBe(1);
    expect(exactMatch('a lake sunset', 'lake sunrise')).toBe(0);
  });
});

describe('tokenF1', () => {
  it('is the harmonic mean of token precision and recall', () => {
    // prediction tokens: painted lake sunrise (3); gold: lake sunrise (2); shared 2.
    expect(tokenF1('painted a lake sunrise', 'the lake sunrise')).toBeCloseTo(
      (2 * (2 / 3) * 1) / (2 / 3 + 1),
      12,
    );
    expect(tokenF1('nothing shared', 'lake sunrise')).toBe(0);
    expect(tokenF1('', '')).toBe(1);
    expect(tokenF1('', 'lake')).toBe(0);
  });

  it('clips repeated tokens to their count in the gold answer', () => {
    // prediction: lake lake lake (3); gold: lake sunrise (2); shared min(3, 1) = 1.
    const precision = 1 / 3;
    const recall = 1 / 2;
    expect(tokenF1('lake lake lake', 'lake sunrise')).toBeCloseTo(
      (2 * precision * recall) / (precision + recall),
      12,
    );
  });
});

describe('bleu1', () => {
  it('is clipped unigram precision with the brevity penalty', () => {
    expect(bleu1('lake sunrise', 'lake sunrise')).toBe(1);
    // candidate 1 token, reference 2: precision 1, brevity exp(1 - 2/1).
    expect(bleu1('lake', 'lake sunrise')).toBeCloseTo(Math.exp(-1), 12);
    // candidate longer than the reference: no penalty; precision 2/4.
    expect(bleu1('lake sunrise at dawn', 'lake sunrise')).toBe(0.5);
    expect(bleu1('lake lake', 'lake sunrise')).toBeCloseTo(0.5, 12);
    expect(bleu1('', 'lake')).toBe(0);
  });
});

describe('answer metrics on more hand-built cases', () => {
  it('removes articles only as whole words, and typographic punctuation too', () => {
    expect(normalizeAnswer('Another theatre, then the anthem')).toBe('another theatre then anthem');
    expect(normalizeAnswer('Caroline\u2019s \u201cfavourite\u201d book \u2014 An Adventure')).toBe(
      'caroline s favourite book adventure',
    );
    expect(exactMatch('An apple.', 'apple')).toBe(1);
  });

  it('token F1 is symmetric and ignores word order', () => {
    expect(tokenF1('sunrise lake', 'lake sunrise')).toBe(1);
    // prediction: 7 may 2023 (3); gold: may 7 (2); shared 2 -> P 2/3, R 1.
    expect(tokenF1('7 May 2023', 'May 7')).toBeCloseTo(0.8, 12);
    expect(tokenF1('May 7', '7 May 2023')).toBeCloseTo(0.8, 12);
  });

  it('BLEU-1 has no brevity penalty at equal length and clips repeated candidate words', () => {
    // equal length: precision 1/2, penalty exp(1 - 2/2) = 1.
    expect(bleu1('may 2023', 'april 2023')).toBe(0.5);
    // candidate "2023 2023 2023" (3) vs reference "april 2023" (2): clipped 1/3, no penalty (3 > 2).
    expect(bleu1('2023 2023 2023', 'april 2023')).toBeCloseTo(1 / 3, 12);
    // a candidate of articles only normalizes to nothing: 0.
    expect(bleu1('the a an', 'lake')).toBe(0);
  });
});
