import { describe, expect, it } from 'vitest';
import { chunkBlock, frameHead, frameTail } from './frame.js';
import { loadTokenizer } from './tokenizer.js';

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
});
