/**
 * The near-duplicate rule of contract v1. Its id names the whole rule: NFKC, lower case, words as
 * maximal runs of letters and digits, the set of adjacent word pairs (a text of one word is that word),
 * and Jaccard similarity of the two sets. Changing any part of it means a new id.
 */
export const NEAR_DUPLICATE_RULE_ID = 'powercontext.assembly.near-duplicate.word-bigram-jaccard.v1';

/** The comparable form of one text under the rule. */
export type Shingles = ReadonlySet<string>;

export function shinglesOf(text: string): Shingles {
  const words = wordsOf(text);
  if (words.length < 2) return new Set(words);
  const pairs = new Set<string>();
  for (let index = 1; index < words.length; index += 1) pairs.add(`${words[index - 1]} ${words[index]}`);
  return pairs;
}

function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Jaccard similarity in [0, 1]; two texts without any word are not similar (0): exact hashes catch those. */
export function similarity(a: Shingles, b: Shingles): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const shingle of small) if (large.has(shingle)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * The same rule in a form that is cheap to hold: words are numbered as they are first seen (per
 * builder, so only sets from one builder compare), a word pair becomes one number, and a text's set
 * is a sorted array of them without repeats. Similarity of two such arrays equals `similarity` of the
 * string sets exactly: the numbering is one-to-one, and a text of a single word gets a negative
 * number, which no pair has (as no word contains the space a pair has).
 *
 * A walk over many long candidates keeps a few thousand numbers per text in one typed array instead
 * of a few thousand small strings in a Set, which otherwise fill the heap and cost garbage
 * collection pauses that stall every request of the process.
 */
export class CompactShingler {
  /** Pair numbers are first * 2^26 + second: below 2^52, so exact in a double. */
  static readonly #WORD_LIMIT = 2 ** 26;
  readonly #ids = new Map<string, number>();

  of(text: string): Float64Array {
    const words = wordsOf(text);
    if (words.length === 0) return new Float64Array(0);
    if (words.length === 1) return Float64Array.of(-1 - this.#id(words[0]!));
    const keys = new Float64Array(words.length - 1);
    let previous = this.#id(words[0]!);
    for (let index = 1; index < words.length; index += 1) {
      const current = this.#id(words[index]!);
      keys[index - 1] = previous * CompactShingler.#WORD_LIMIT + current;
      previous = current;
    }
    keys.sort();
    let unique = 1;
    for (let index = 1; index < keys.length; index += 1) {
      if (keys[index] !== keys[unique - 1]) keys[unique++] = keys[index]!;
    }
    return keys.subarray(0, unique);
  }

  #id(word: string): number {
    let id = this.#ids.get(word);
    if (id === undefined) {
      id = this.#ids.size;
      if (id >= CompactShingler.#WORD_LIMIT) throw new RangeError('too many distinct words for one assembly');
      this.#ids.set(word, id);
    }
    return id;
  }
}

/** `similarity` for two sets from one CompactShingler: a merge walk of the sorted arrays. */
export function compactSimilarity(a: Float64Array, b: Float64Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (a[i]! < b[j]!) i += 1;
    else j += 1;
  }
  return shared / (a.length + b.length - shared);
}
