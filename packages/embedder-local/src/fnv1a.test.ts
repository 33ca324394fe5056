import { describe, expect, it } from 'vitest';
import { fnv1a32 } from './fnv1a.js';

/** FNV-1a over TextEncoder's bytes: the definition the embedder's vectors were made with. */
function reference(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

describe('fnv1a32', () => {
  it('hashes the published test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes TextEncoder writes, for every kind of code point and lone surrogates', () => {
    const samples = [
      'w\u0001café',
      'c\u0001\u0002na',
      'naïve 東京 😀 \u{10ffff}',
      '\ud800',
      'a\udc00b',
      '\ud83d\ud83d\ude00',
      'x\ud83d',
      '\u007f\u0080\u07ff\u0800\uffff',
    ];
    let state = 7;
    for (let n = 0; n < 2_000; n++) {
      let text = '';
      const length = n % 12;
      for (let at = 0; at < length; at++) {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        text += String.fromCharCode(state % 3 === 0 ? state % 0x80 : state % 0x10000);
      }
      samples.push(text);
    }
    for (const text of samples) expect(fnv1a32(text), JSON.stringify(text)).toBe(reference(text));
  });
});
