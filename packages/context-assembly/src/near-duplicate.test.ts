import { describe, expect, it } from 'vitest';
import { CompactShingler, compactSimilarity, shinglesOf, similarity } from './near-duplicate.js';

/** Texts from a small vocabulary, so pairs repeat within and across texts. */
function randomTexts(count: number, seed: number): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  const vocabulary = ['Café', 'cafe', 'the', 'río', 'Río', 'ﬁle', 'file', 'a', '42', 'b2', 'Ωmega', 'x'];
  const separators = [' ', ', ', '. ', '\n', ' - ', '!'];
  return Array.from({ length: count }, () => {
    const length = next() % 12;
    let text = '';
    for (let index = 0; index < length; index += 1) {
      text += vocabulary[next() % vocabulary.length]! + separators[next() % separators.length]!;
    }
    return text;
  });
}

describe('the compact near-duplicate sets', () => {
  it('give exactly the similarity of the word-pair string sets', () => {
    const texts = [
      '',
      '!!!',
      'one',
      'One.',
      'one two',
      'two one',
      'one two one two',
      'Café ﬁle',
      'cafe file',
      ...randomTexts(120, 7),
    ];
    const shingler = new CompactShingler();
    const compact = texts.map((text) => shingler.of(text));
    let compared = 0;
    for (let i = 0; i < texts.length; i += 1) {
      for (let j = 0; j < texts.length; j += 1) {
        expect(compactSimilarity(compact[i]!, compact[j]!), `${texts[i]} | ${texts[j]}`).toBe(
          similarity(shinglesOf(texts[i]!), shinglesOf(texts[j]!)),
        );
        compared += 1;
      }
    }
    expect(compared).toBe(texts.length ** 2);
  });

  it('keeps one number per distinct pair, sorted', () => {
    const set = new CompactShingler().of('a b a b a b c');
    expect(set).toHaveLength(shinglesOf('a b a b a b c').size);
    expect([...set]).toEqual([...set].sort((x, y) => x - y));
  });

  it('never equates a one-word text with a pair', () => {
    const shingler = new CompactShingler();
    const single = shingler.of('alpha');
    expect(compactSimilarity(single, shingler.of('alpha alpha'))).toBe(0);
    expect(compactSimilarity(single, shingler.of('Alpha!'))).toBe(1);
  });
});
