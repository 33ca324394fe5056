import { describe, expect, it } from 'vitest';
import { truncateUtf8 } from './truncate-utf8.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** True when the text survives a UTF-8 round trip, i.e. holds no split surrogate pair. */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8') === text;

describe('truncateUtf8', () => {
  it('returns a text within the budget unchanged', () => {
    expect(truncateUtf8('hello', 5)).toEqual({ text: 'hello', truncated: false });
    expect(truncateUtf8('', 0)).toEqual({ text: '', truncated: false });
    expect(truncateUtf8('日本', 6)).toEqual({ text: '日本', truncated: false });
  });

  it('cuts ASCII at the exact byte budget', () => {
    expect(truncateUtf8('abcdef', 4)).toEqual({ text: 'abcd', truncated: true });
  });

  it('never splits a 4-byte emoji (a UTF-16 surrogate pair)', () => {
    const text = `${'a'.repeat(598)}😀${'b'.repeat(10)}`;
    for (const budget of [598, 599, 600, 601]) {
      const result = truncateUtf8(text, budget);
      expect(result.truncated).toBe(true);
      expect(result.text).toBe('a'.repeat(598));
      expect(wellFormed(result.text)).toBe(true);
    }
    expect(truncateUtf8(text, 602).text).toBe(`${'a'.repeat(598)}😀`);
  });

  it('never splits a 3-byte CJK character', () => {
    const text = `${'a'.repeat(599)}漢字`;
    expect(truncateUtf8(text, 600)).toEqual({ text: 'a'.repeat(599), truncated: true });
    expect(truncateUtf8(text, 601)).toEqual({ text: 'a'.repeat(599), truncated: true });
    expect(truncateUtf8(text, 602)).toEqual({ text: `${'a'.repeat(599)}漢`, truncated: true });
    expect(truncateUtf8(`${'a'.repeat(597)}漢`, 600)).toEqual({
      text: `${'a'.repeat(597)}漢`,
      truncated: false,
    });
  });

  it('never splits a 2-byte character', () => {
    expect(truncateUtf8('ééé', 5)).toEqual({ text: 'éé', truncated: true });
  });

  it('keeps mixed text within the budget on a boundary for every budget', () => {
    const text = 'aé漢😀'.repeat(20);
    for (let budget = 0; budget <= bytes(text); budget += 1) {
      const result = truncateUtf8(text, budget);
      expect(bytes(result.text)).toBeLessThanOrEqual(budget);
      expect(bytes(result.text)).toBeGreaterThan(budget - 4);
      expect(wellFormed(result.text)).toBe(true);
      expect(text.startsWith(result.text)).toBe(true);
      expect(result.truncated).toBe(result.text !== text);
    }
  });

  it('rejects a negative or fractional budget', () => {
    expect(() => truncateUtf8('x', -1)).toThrow(RangeError);
    expect(() => truncateUtf8('x', 1.5)).toThrow(RangeError);
  });
});
