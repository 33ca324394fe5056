/** A small seeded PRNG (mulberry32): uniform floats in [0, 1), the same sequence for the same seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Random = () => number;

const COMMON = `i the to and a you of it that is in my we for was on have it's with be this but so at
just not what are me they like do all from he she can get go if about time out up know one there
will our got when would think really had been your going them then more no did yeah some good also
new back see now day today week said how because want love last home work make well went next still
little much great friend family kids weekend yesterday tomorrow trip dinner book movie dog cat garden
school job house car music game team plan idea party birthday morning night summer winter city park
trail beach lake coffee class project meeting sister brother mom dad wife husband doctor painting
recipe concert festival camping hiking running yoga guitar piano photo news store market vacation`
  .split(/\s+/)
  .filter((word) => word !== '');

const NAMES = `Caroline Melanie Gina Jon John Maria Joanna Nate Tim Audrey Andrew James Deborah Evan Sam
Jolene Calvin Dave Priya Omar Lena Yuki Mateo Ingrid Kwame Sofia Ravi Hannah Luca Amara Felix Nora
Diego Mei Tobias Zara Elif Noah Chloe Ivan`.split(/\s+/);

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'g', 'gl', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl'];
const MORE_ONSETS = ['qu', 'r', 's', 'sh', 'sk', 'st', 't', 'th', 'tr', 'v', 'w', 'z', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 'nd', 'st', 'x', 'k'];

/** A Zipf-like sampler over `size` ranks: P(rank r) proportional to 1 / (r + 1)^exponent. */
function zipfSampler(size: number, exponent: number): (random: Random) => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/** Pseudo-words built from syllables, unique and distinct from the English words. */
function pseudoWords(random: Random, count: number): string[] {
  const onsets = [...ONSETS, ...MORE_ONSETS];
  const taken = new Set(COMMON);
  const words: string[] = [];
  while (words.length < count) {
    let word = '';
    for (let syllable = between(random, 1, 3); syllable > 0; syllable--) {
      word += pick(random, onsets) + pick(random, VOWELS) + (random() < 0.3 ? pick(random, CODAS) : '');
    }
    if (word.length >= 4 && !taken.has(word)) {
      taken.add(word);
      words.push(word);
    }
  }
  return words;
}

export const PSEUDO_WORDS = 3_000;

interface WordSource {
  word(random: Random): string;
}

/** The vocabulary of a seed: common words, pseudo-words, names and numbers with Zipf-like weights. */
function vocabulary(seed: number): WordSource {
  const pseudo = pseudoWords(mulberry32(seed ^ 0x5bd1e995), PSEUDO_WORDS);
  const commonRank = zipfSampler(COMMON.length, 1.0);
  const pseudoRank = zipfSampler(pseudo.length, 1.07);
  const nameRank = zipfSampler(NAMES.length, 0.8);
  return {
    word(random) {
      const roll = random();
      if (roll < 0.58) return COMMON[commonRank(random)]!;
      if (roll < 0.9) return pseudo[pseudoRank(random)]!;
      if (roll < 0.95) return NAMES[nameRank(random)]!;
      return random() < 0.5 ? String(between(random, 1, 100)) : String(between(random, 1990, 2030));
    },
  };
}

export interface CorpusEntry {
  text: string;
  /** Index of the scope the entry belongs to: entry i goes to scope i % scopes. */
  scope: number;
}

export const ENTRY_WORDS = { min: 8, max: 40 } as const;
export const QUERY_WORDS = { min: 3, max: 10 } as const;

/** Chat-memory sentences such as "Priya: we went to the vorastel market with 2 kids ...". */
export function generateCorpus(options: { seed: number; entries: number; scopes: number }): CorpusEntry[] {
  const random = mulberry32(options.seed);
  const words = vocabulary(options.seed);
  const entries: CorpusEntry[] = [];
  for (let index = 0; index < options.entries; index++) {
    const length = between(random, ENTRY_WORDS.min, ENTRY_WORDS.max);
    const body: string[] = [];
    for (let position = 1; position < length; position++) {
      const word = words.word(random);
      body.push(position < length - 1 && random() < 0.06 ? `${word},` : word);
    }
    body[0] = body[0]!.charAt(0).toUpperCase() + body[0]!.slice(1);
    const end = random() < 0.8 ? '.' : random() < 0.5 ? '?' : '!';
    entries.push({ text: `${pick(random, NAMES)}: ${body.join(' ')}${end}`, scope: index % options.scopes });
  }
  return entries;
}

export interface CorpusQuery {
  text: string;
  scope: number;
  /** True when the words were taken from an entry of the same scope, so the query should match. */
  fromEntry: boolean;
}

const QUESTION_STARTS = ['what', 'when', 'where', 'who', 'did', 'how'];

/** Queries of 3-10 words, round-robin over scopes; half take their words from an entry of that scope. */
export function generateQueries(
  options: { seed: number; count: number; scopes: number },
  entries: readonly CorpusEntry[],
): CorpusQuery[] {
  const random = mulberry32(options.seed ^ 0x9e3779b9);
  const words = vocabulary(options.seed);
  const queries: CorpusQuery[] = [];
  for (let index = 0; index < options.count; index++) {
    const scope = index % options.scopes;
    const length = between(random, QUERY_WORDS.min, QUERY_WORDS.max);
    const inScope = Math.ceil((entries.length - scope) / options.scopes);
    if (random() < 0.5 && inScope > 0) {
      const entry = entries[scope + between(random, 0, inScope - 1) * options.scopes]!;
      const tokens = entry.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s]/gu, '')
        .split(/\s+/);
      const chosen = new Set<number>();
      while (chosen.size < Math.min(length, tokens.length)) chosen.add(between(random, 0, tokens.length - 1));
      const text = [...chosen].sort((a, b) => a - b).map((position) => tokens[position]);
      queries.push({ text: text.join(' '), scope, fromEntry: true });
    } else {
      const text = [pick(random, QUESTION_STARTS)];
      while (text.length < length) text.push(words.word(random).toLowerCase());
      queries.push({ text: text.join(' '), scope, fromEntry: false });
    }
  }
  return queries;
}
