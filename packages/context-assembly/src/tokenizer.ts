import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';

/** Encodings the assembly contract can name. Each is a fixed BPE table shipped inside js-tiktoken. */
export const TOKENIZER_IDS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerId = (typeof TOKENIZER_IDS)[number];

/** Counts tokens of one named encoding. Every string is counted as plain text, special-token lookalikes included. */
export interface Tokenizer {
  readonly id: TokenizerId;
  count(text: string): number;
}

const loaders: Record<TokenizerId, () => Promise<TiktokenBPE>> = {
  o200k_base: async () => (await import('js-tiktoken/ranks/o200k_base')).default,
  cl100k_base: async () => (await import('js-tiktoken/ranks/cl100k_base')).default,
};

const cache = new Map<TokenizerId, Promise<Tokenizer>>();

/**
 * The tokenizer of `id`, loaded once per process. The rank tables ship inside the js-tiktoken package
 * (nothing is downloaded); loading one takes a few hundred milliseconds the first time.
 */
export function loadTokenizer(id: TokenizerId): Promise<Tokenizer> {
  let tokenizer = cache.get(id);
  if (!tokenizer) {
    const loader = loaders[id];
    if (!loader) return Promise.reject(new RangeError(`unknown tokenizer ${JSON.stringify(id)}`));
    tokenizer = loader().then((ranks) => {
      const encoding = new Tiktoken(ranks);
      // No special tokens: retrieved text that spells `<|endoftext|>` is data and is counted as text,
      // instead of making the encoder throw or emit a control token.
      return { id, count: (text: string) => encoding.encode(text, [], []).length };
    });
    tokenizer.catch(() => cache.delete(id));
    cache.set(id, tokenizer);
  }
  return tokenizer;
}
