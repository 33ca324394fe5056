import { fnv1a32 } from './fnv1a.js';
import { wordTokens } from './word-tokens.js';

/** Weight of a whole-word feature. Words say more about the topic than their fragments. */
export const WORD_FEATURE_WEIGHT = 1;
/** Weight of one character trigram feature. A word yields several trigrams, so each counts less. */
export const TRIGRAM_FEATURE_WEIGHT = 0.5;

// Distinct prefixes keep the word "cat" and the trigram "cat" apart as features.
const WORD_PREFIX = 'w\u0001';
const TRIGRAM_PREFIX = 'c\u0001';
// Boundary markers make a word's start and end trigrams distinct from its inner ones.
const WORD_START = '\u0002';
const WORD_END = '\u0003';

/**
 * Feature-hashed vector of a text: word unigrams and the character trigrams of each word (with
 * boundary markers) are counted, damped to 1 + ln(tf), weighted, added into `dimension` slots with a
 * hash-derived sign (so collisions cancel out on average instead of piling up), then scaled to unit
 * length.
 *
 * A text without any non-stop word (empty, punctuation only, stop words only) has no features and
 * yields the all-zero vector, which cannot be normalised; its cosine to any vector counts as 0.
 */
export function hashVector(text: string, dimension: number): number[] {
  const words = new Map<string, number>();
  const trigrams = new Map<string, number>();
  for (const word of wordTokens(text)) {
    increment(words, WORD_PREFIX + word);
    const characters = Array.from(WORD_START + word + WORD_END);
    for (let start = 0; start + 3 <= characters.length; start += 1) {
      increment(trigrams, TRIGRAM_PREFIX + characters[start] + characters[start + 1] + characters[start + 2]);
    }
  }

  const vector = new Array<number>(dimension).fill(0);
  addFeatures(vector, words, WORD_FEATURE_WEIGHT);
  addFeatures(vector, trigrams, TRIGRAM_FEATURE_WEIGHT);
  return normalize(vector);
}

function increment(counts: Map<string, number>, feature: string): void {
  counts.set(feature, (counts.get(feature) ?? 0) + 1);
}

function addFeatures(vector: number[], counts: ReadonlyMap<string, number>, weight: number): void {
  for (const [feature, tf] of counts) {
    const hash = fnv1a32(feature);
    const slot = hash % vector.length;
    // The slot comes mostly from the low-order bits; the top bit decides the sign.
    const sign = hash & 0x80000000 ? -1 : 1;
    vector[slot] = (vector[slot] ?? 0) + sign * weight * (1 + Math.log(tf));
  }
}

function normalize(vector: number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  if (squares === 0) return vector;
  const length = Math.sqrt(squares);
  for (let at = 0; at < vector.length; at++) vector[at] = vector[at]! / length;
  return vector;
}
