import { Tiktoken } from 'js-tiktoken/lite';
import { describe, expect, it, vi } from 'vitest';
import { chunkBlock, frameHead, frameTail } from './frame.js';
import { loadTokenizer, TOKENIZER_IDS } from './tokenizer.js';

// Expected counts come from token sequences published for these encodings (OpenAI's token-counting
// guide and its comparison of encodings), not from this library: e.g. "tiktoken is great!" is
// ["t", "ik", "token", " is", " great", "!"] in cl100k_base and six tokens in o200k_base too.
const KNOWN: [string, 'o200k_base' | 'cl100k_base', number][] = [
  ['tiktoken is great!', 'cl100k_base', 6],
  ['tiktoken is great!', 'o200k_base', 6],
  ['hello world', 'cl100k_base', 2],
  ['hello world', 'o200k_base', 2],
  ['China is great!', 'cl100k_base', 4],
  ['Hello, how are you doing today?', 'cl100k_base', 8],
  ['The quick brown fox jumps over the lazy dog.', 'cl100k_base', 10],
  ['', 'o200k_base', 0],
];

describe('tokenizer', () => {
  it.each(KNOWN)('counts %j in %s as %i tokens', async (text, id, expected) => {
    const tokenizer = await loadTokenizer(id);
    expect(tokenizer.id).toBe(id);
    expect(tokenizer.count(text)).toBe(expected);
  });

  it('counts tokens, not characters', async () => {
    const tokenizer = await loadTokenizer('o200k_base');
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    expect(tokenizer.count(text)).toBeLessThan(text.length / 3);
  });

  it('counts special-token lookalikes in retrieved text as plain text instead of throwing', async () => {
    for (const id of ['o200k_base', 'cl100k_base'] as const) {
      const tokenizer = await loadTokenizer(id);
      expect(tokenizer.count('<|endoftext|>')).toBeGreaterThan(1);
    }
  });

  it('loads each encoding once', async () => {
    expect(await loadTokenizer('cl100k_base')).toBe(await loadTokenizer('cl100k_base'));
  });

  it('counts of the frame pieces add up to the count of the whole frame, for awkward texts', async () => {
    const alphabet = [
      'a',
      'Z',
      '7',
      ' ',
      '  ',
      '\n',
      '\n\n',
      '\r\n',
      '>',
      '<',
      '/',
      '&',
      '"',
      "'s",
      '—',
      '🌱',
      '\t',
      '|',
      '.',
    ];
    let seed = 12_345;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (const id of ['o200k_base', 'cl100k_base'] as const) {
      const tokenizer = await loadTokenizer(id);
      for (let trial = 0; trial < 200; trial += 1) {
        const pieces = [frameHead()];
        for (let chunk = 0; chunk < 1 + (next() % 4); chunk += 1) {
          const text = Array.from({ length: next() % 30 }, () => alphabet[next() % alphabet.length]).join('');
          const source = Array.from(
            { length: 1 + (next() % 5) },
            () => alphabet[next() % alphabet.length],
          ).join('');
          pieces.push(chunkBlock(1 + (next() % 100), source, text));
        }
        pieces.push(frameTail());
        const sum = pieces.reduce((total, piece) => total + tokenizer.count(piece), 0);
        expect(tokenizer.count(pieces.join(''))).toBe(sum);
      }
    }
  });

  describe('against js-tiktoken’s own encoder', () => {
    const REFERENCE_RANKS = {
      o200k_base: async () => (await import('js-tiktoken/ranks/o200k_base')).default,
      cl100k_base: async () => (await import('js-tiktoken/ranks/cl100k_base')).default,
    };
    // Texts in many scripts and shapes: words, digits, contractions, white-space runs, emoji, CJK, RTL,
    // markup, and long runs of one character (the longest merges).
    const ALPHABET = [
      'the',
      ' quick',
      ' Brown',
      "'s",
      "'LL",
      ' 12345',
      '7',
      '  ',
      '   ',
      '\n',
      '\n\n',
      '\r\n',
      '\t',
      ' <b>',
      '</chunk>',
      '&amp;',
      '—',
      '🌱',
      '👩‍👩‍👧',
      '東京',
      'タワー',
      ' שלום',
      ' مرحبا',
      'naïve',
      'Ǆ',
      'ﬁ',
      '...',
      '!!',
      '/',
      '//',
      ' x/y',
      'aaaaaaaa',
      '--------',
      '\u00a0',
      '\u200b',
      '<|endoftext|>',
    ];
    const textOf = (next: () => number, words: number) =>
      Array.from({ length: words }, () => ALPHABET[next() % ALPHABET.length]).join('');
    const random = (seed: number) => () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };

    it.each(TOKENIZER_IDS)('counts every text as %s encodes it', async (id) => {
      const reference = new Tiktoken(await REFERENCE_RANKS[id]());
      const tokenizer = await loadTokenizer(id);
      const next = random(7);
      for (let trial = 0; trial < 300; trial += 1) {
        const text = textOf(next, next() % 120);
        expect(tokenizer.count(text), JSON.stringify(text)).toBe(reference.encode(text, [], []).length);
      }
    });

    it.each(TOKENIZER_IDS)('cuts %s pieces whose counts add up to the whole and rejoin to it', async (id) => {
      const reference = new Tiktoken(await REFERENCE_RANKS[id]());
      const tokenizer = await loadTokenizer(id);
      const next = random(99);
      for (let trial = 0; trial < 100; trial += 1) {
        const text = textOf(next, 50 + (next() % 400));
        const size = 1 + (next() % 200);
        const pieces = [...tokenizer.pieces(text, size)];
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces.slice(0, -1)) expect(piece.length).toBeGreaterThanOrEqual(size);
        const sum = pieces.reduce((total, piece) => total + tokenizer.count(piece), 0);
        expect(sum, JSON.stringify(text)).toBe(reference.encode(text, [], []).length);
      }
    });
  });

  it('builds its rank table in slices, so timers run while it loads', async () => {
    // A fresh module instance: the process-wide cache of this file already holds loaded tokenizers.
    vi.resetModules();
    const fresh = await import('./tokenizer.js');
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 0);
    try {
      await fresh.loadTokenizer('o200k_base');
    } finally {
      clearInterval(timer);
    }
    // One slice holds 2,048 of the 200,000 entries: about 100 slices, each followed by a yield.
    expect(ticks).toBeGreaterThanOrEqual(40);
  });
});
