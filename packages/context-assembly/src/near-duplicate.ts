/**
 * The near-duplicate rule of contract v1. Its id names the whole rule: NFKC, lower case, words as
 * maximal runs of letters and digits, the set of adjacent word pairs (a text of one word is that word),
 * and Jaccard similarity of the two sets. Changing any part of it means a new id.
 */
export const NEAR_DUPLICATE_RULE_ID = 'powercontext.assembly.near-duplicate.word-bigram-jaccard.v1';

/** The comparable form of one text under the rule. */
export type Shingles = ReadonlySet<string>;

export function shinglesOf(text: string): Shingles {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 2) return new Set(words);
  const pairs = new Set<string>();
  for (let index = 1; index < words.length; index += 1) pairs.add(`${words[index - 1]} ${words[index]}`);
  return pairs;
}

/** Jaccard similarity in [0, 1]; two texts without any word are not similar (0): exact hashes catch those. */
export function similarity(a: Shingles, b: Shingles): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const shingle of small) if (large.has(shingle)) shared += 1;
  return shared / (a.size + b.size - shared);
}
