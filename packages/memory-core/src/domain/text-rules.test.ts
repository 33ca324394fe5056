import { describe, expect, it } from 'vitest';
import { containsFolded, foldCase } from './text-rules.js';

describe('foldCase (the list text match, as PostgreSQL lower() folds)', () => {
  it('folds each character by its own mapping: no context, one character to one', () => {
    expect(foldCase('INVOICE Run')).toBe('invoice run');
    expect(foldCase('ÄRGER IM BÜRO')).toBe('ärger im büro');
    // String.prototype.toLowerCase would give a final ς and i + U+0307; lower() gives σ and i.
    expect('ΟΔΟΣ'.toLowerCase()).toBe('οδος');
    expect(foldCase('ΟΔΟΣ')).toBe('οδοσ');
    expect('İ'.toLowerCase()).toBe('i\u0307');
    expect(foldCase('İstanbul')).toBe('istanbul');
    // Characters without a lower case, and astral ones, stay as they are.
    expect(foldCase('ß 🧠 中文 5% a_b')).toBe('ß 🧠 中文 5% a_b');
  });

  it('finds a needle in any case, literally', () => {
    expect(containsFolded('The INVOICE run', 'invoice RUN')).toBe(true);
    expect(containsFolded('growth was 50 in May', '5%')).toBe(false);
    expect(containsFolded('axb', 'a_b')).toBe(false);
  });
});
