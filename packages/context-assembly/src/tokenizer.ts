import { nextTurn } from '@powercontext/memory-core';
import type { TiktokenBPE } from 'js-tiktoken/lite';

/** Encodings the assembly contract can name. Each is a fixed BPE table shipped inside js-tiktoken. */
export const TOKENIZER_IDS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerId = (typeof TOKENIZER_IDS)[number];

/** Counts tokens of one named encoding. Every string is counted as plain text, special-token lookalikes included. */
export interface Tokenizer {
  readonly id: TokenizerId;
  count(text: string): number;
  /**
   * Cuts `text` into consecutive pieces of at least `size` characters (the last may be shorter), only
   * where the encoding's pre-tokenisation cuts too, so the counts of the pieces add up to the count of
   * the whole. Counting piece by piece lets a caller stop early and yield between pieces.
   */
  pieces(text: string, size: number): Generator<string, void, undefined>;
}

const loaders: Record<TokenizerId, () => Promise<TiktokenBPE>> = {
  o200k_base: async () =>
    (await readRanks('js-tiktoken/ranks/o200k_base')) ??
    (await import('js-tiktoken/ranks/o200k_base')).default,
  cl100k_base: async () =>
    (await readRanks('js-tiktoken/ranks/cl100k_base')) ??
    (await import('js-tiktoken/ranks/cl100k_base')).default,
};

/**
 * The rank table read as data: the module is one object literal in JSON syntax, and parsing 2 MB of
 * JSON takes milliseconds where compiling it as a module holds the thread for hundreds. Undefined
 * where that does not work (no file system, another layout); the caller then imports the module.
 */
async function readRanks(specifier: string): Promise<TiktokenBPE | undefined> {
  try {
    const [{ createRequire }, { readFile }] = await Promise.all([
      import('node:module'),
      import('node:fs/promises'),
    ]);
    const text = await readFile(createRequire(import.meta.url).resolve(specifier), 'utf8');
    const ranks = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as TiktokenBPE;
    return typeof ranks.pat_str === 'string' && typeof ranks.bpe_ranks === 'string' ? ranks : undefined;
  } catch {
    return undefined;
  }
}

const cache = new Map<TokenizerId, Promise<Tokenizer>>();

/**
 * The tokenizer of `id`, loaded once per process. The rank tables ship inside the js-tiktoken package
 * (nothing is downloaded). Building the rank map of 200,000 byte sequences is done in slices that
 * yield to the event loop, so a server keeps answering while the first assembly loads it.
 */
export function loadTokenizer(id: TokenizerId): Promise<Tokenizer> {
  let tokenizer = cache.get(id);
  if (!tokenizer) {
    const loader = loaders[id];
    if (!loader) return Promise.reject(new RangeError(`unknown tokenizer ${JSON.stringify(id)}`));
    tokenizer = loader().then(async (bpe) => new BpeTokenizer(id, bpe.pat_str, await rankMapOf(bpe)));
    tokenizer.catch(() => cache.delete(id));
    cache.set(id, tokenizer);
  }
  return tokenizer;
}

/** Rank-table entries decoded between two yields (a few milliseconds of work). */
const RANKS_PER_SLICE = 2_048;

/**
 * Byte sequence (one char per byte, 0-255) to rank. The table lists base64 tokens after an offset,
 * line by line: `<label> <offset> <token> <token> ...`, the i-th token having rank offset + i.
 */
async function rankMapOf(bpe: TiktokenBPE): Promise<Map<string, number>> {
  const ranks = new Map<string, number>();
  for (const line of bpe.bpe_ranks.split('\n')) {
    if (line === '') continue;
    const [, offsetText, ...tokens] = line.split(' ');
    await nextTurn();
    const offset = Number.parseInt(offsetText!, 10);
    for (let start = 0; start < tokens.length; start += RANKS_PER_SLICE) {
      const end = Math.min(tokens.length, start + RANKS_PER_SLICE);
      for (let index = start; index < end; index += 1) ranks.set(atob(tokens[index]!), offset + index);
      await nextTurn();
    }
  }
  return ranks;
}

/** Pre-token counts remembered per tokenizer; chat text repeats its words, so most lookups hit. */
const COUNT_CACHE_SIZE = 65_536;
const WHITE_SPACE = /\s/u;
/** Every UTF-16 unit below 0x80: the string is its own UTF-8, one char per byte. */
const isAscii = (text: string): boolean => {
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
};

/**
 * Byte-level BPE as the encodings define it, counting instead of emitting: the text is split into
 * pre-tokens by the encoding's pattern; a pre-token that is itself in the table is one token; any
 * other is merged from its bytes, always the adjacent pair of lowest rank first (the leftmost on a
 * tie), until no pair is in the table, and counts as the parts left. No special tokens: text that
 * spells `<|endoftext|>` is data and is counted as text.
 */
class BpeTokenizer implements Tokenizer {
  readonly #pattern: string;
  readonly #splitter: RegExp;
  readonly #ranks: Map<string, number>;
  readonly #counts = new Map<string, number>();
  readonly #encoder = new TextEncoder();

  constructor(
    readonly id: TokenizerId,
    pattern: string,
    ranks: Map<string, number>,
  ) {
    this.#pattern = pattern;
    this.#splitter = new RegExp(pattern, 'gu');
    this.#ranks = ranks;
  }

  count(text: string): number {
    let total = 0;
    this.#splitter.lastIndex = 0;
    for (let match = this.#splitter.exec(text); match !== null; match = this.#splitter.exec(text)) {
      total += this.#countPreToken(match[0]);
    }
    return total;
  }

  /**
   * Pre-tokens are the matches of the encoding's pattern, which cover the text without gaps and never
   * look behind. A cut after a pre-token that does not end in white space is therefore seen the same
   * way from either side: the matches before it do not depend on what follows (the only look-ahead, of
   * a white-space run, cannot end there) and the matches after it start afresh. The tests check that
   * the pieces' counts add up on awkward texts, against js-tiktoken's own encoder.
   */
  *pieces(text: string, size: number): Generator<string, void, undefined> {
    if (text.length <= size) {
      yield text;
      return;
    }
    const splitter = new RegExp(this.#pattern, 'gu');
    let start = 0;
    for (let match = splitter.exec(text); match !== null; match = splitter.exec(text)) {
      const end = match.index + match[0].length;
      if (end - start >= size && end < text.length && !WHITE_SPACE.test(text[end - 1]!)) {
        yield text.slice(start, end);
        start = end;
      }
    }
    if (start < text.length) yield text.slice(start);
  }

  #countPreToken(preToken: string): number {
    const known = this.#counts.get(preToken);
    if (known !== undefined) return known;
    const bytes = isAscii(preToken) ? preToken : this.#bytesOf(preToken);
    const counted = this.#ranks.has(bytes) ? 1 : this.#mergedParts(bytes);
    if (this.#counts.size >= COUNT_CACHE_SIZE) this.#counts.clear();
    this.#counts.set(preToken, counted);
    return counted;
  }

  /** UTF-8 bytes of `text` as a string of one char per byte, the form the rank map is keyed by. */
  #bytesOf(text: string): string {
    let bytes = '';
    for (const byte of this.#encoder.encode(text)) bytes += String.fromCharCode(byte);
    return bytes;
  }

  /** Parts left after merging `bytes` pair by pair, lowest rank first. */
  #mergedParts(bytes: string): number {
    // bounds[i] is where part i starts; the last entry is the end of the bytes.
    const bounds = Array.from({ length: bytes.length + 1 }, (_, index) => index);
    while (bounds.length > 2) {
      let best = Number.POSITIVE_INFINITY;
      let at = -1;
      for (let part = 0; part + 2 < bounds.length; part += 1) {
        const rank = this.#ranks.get(bytes.slice(bounds[part], bounds[part + 2]));
        if (rank !== undefined && rank < best) {
          best = rank;
          at = part;
        }
      }
      if (at < 0) break;
      bounds.splice(at + 1, 1);
    }
    return bounds.length - 1;
  }
}
