import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  type DiffPart,
  diffWords,
  fieldChanges,
  tokenize,
  type VersionFields,
} from './version-diff.js';

/** The old text (equal and deleted parts) and the new text (equal and inserted parts) of a diff. */
function sides(parts: readonly DiffPart[]): { before: string; after: string } {
  return {
    before: parts
      .filter((part) => part.op !== 'insert')
      .map((part) => part.text)
      .join(''),
    after: parts
      .filter((part) => part.op !== 'delete')
      .map((part) => part.text)
      .join(''),
  };
}

const changed = (parts: readonly DiffPart[], op: 'delete' | 'insert') =>
  parts.filter((part) => part.op === op).map((part) => part.text);

/** A small deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('tokenize', () => {
  it('splits words, white space runs and each punctuation mark, losing nothing', () => {
    expect(tokenize('Tea, please:  green\ttea.')).toEqual([
      'Tea',
      ',',
      ' ',
      'please',
      ':',
      '  ',
      'green',
      '\t',
      'tea',
      '.',
    ]);
    expect(tokenize('Zoë’s café')).toEqual(['Zoë', '’', 's', ' ', 'café']);
    expect(tokenize('')).toEqual([]);
  });
});

describe('diffWords', () => {
  it('names the replaced, deleted and inserted words between two versions', () => {
    const diff = diffWords(
      'Alice prefers green tea over coffee in the afternoon.',
      'Alice prefers black tea in the late afternoon, with milk.',
    );
    expect(diff.exact).toBe(true);
    expect(diff.parts).toEqual([
      { op: 'equal', text: 'Alice prefers ' },
      { op: 'delete', text: 'green' },
      { op: 'insert', text: 'black' },
      { op: 'equal', text: ' tea ' },
      { op: 'delete', text: 'over coffee ' },
      { op: 'equal', text: 'in the ' },
      { op: 'insert', text: 'late ' },
      { op: 'equal', text: 'afternoon' },
      { op: 'insert', text: ', with milk' },
      { op: 'equal', text: '.' },
    ]);
  });

  it('joins changes separated only by white space into one replacement', () => {
    const diff = diffWords('the quick brown fox', 'the slow red fox');
    expect(diff.parts).toEqual([
      { op: 'equal', text: 'the ' },
      { op: 'delete', text: 'quick brown' },
      { op: 'insert', text: 'slow red' },
      { op: 'equal', text: ' fox' },
    ]);
  });

  it('answers one equal part for equal texts, and only an insertion or a deletion against an empty text', () => {
    expect(diffWords('same words', 'same words').parts).toEqual([{ op: 'equal', text: 'same words' }]);
    expect(diffWords('', 'new words').parts).toEqual([{ op: 'insert', text: 'new words' }]);
    expect(diffWords('old words', '').parts).toEqual([{ op: 'delete', text: 'old words' }]);
    expect(diffWords('', '').parts).toEqual([]);
  });

  it('keeps a longest common subsequence: only the words that must change are marked', () => {
    // a b c d e → b c e f: a and d go, f comes; b, c and e stay.
    const diff = diffWords('a b c d e', 'b c e f');
    expect(changed(diff.parts, 'delete').join('|')).toBe('a |d ');
    expect(changed(diff.parts, 'insert').join('|')).toBe(' f');
    const kept = diff.parts
      .filter((part) => part.op === 'equal')
      .map((part) => part.text)
      .join('');
    expect(tokenize(kept).filter((token) => token.trim() !== '')).toEqual(['b', 'c', 'e']);
  });

  it('rebuilds both texts from its parts, for random edits of random texts', () => {
    const next = random(30);
    const words = ['tea', 'green', 'coffee', 'the', 'a', ',', '.', 'afternoon', 'Zoë', '\n'];
    const text = (length: number) =>
      Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(next() < 0.5 ? ' ' : '  ');
    for (let run = 0; run < 300; run += 1) {
      const before = text(Math.floor(next() * 30));
      const tokens = tokenize(before);
      // Edit a copy: drop, replace and insert tokens at random places.
      const edited = tokens.flatMap((token) => {
        const roll = next();
        if (roll < 0.1) return [];
        if (roll < 0.2) return [words[Math.floor(next() * words.length)]!];
        if (roll < 0.3) return [token, ' ', words[Math.floor(next() * words.length)]!];
        return [token];
      });
      const after = edited.join('');
      const diff = diffWords(before, after);
      expect(sides(diff.parts), JSON.stringify({ before, after })).toEqual({ before, after });
      // No empty part, and no two neighbours of the same kind.
      for (const [index, part] of diff.parts.entries()) {
        expect(part.text).not.toBe('');
        expect(part.op).not.toBe(diff.parts[index + 1]?.op);
      }
    }
  });

  it('falls back to one replacement of the changed middle beyond the bound, and says so', () => {
    const before = `Start. ${Array.from({ length: 50 }, (_, index) => `old${index}`).join(' ')} End.`;
    const after = `Start. ${Array.from({ length: 50 }, (_, index) => `new${index}`).join(' ')} End.`;
    // 99 changed tokens a side: 9,801 cells. A bound of 9,800 is one too few.
    const bounded = diffWords(before, after, 9_800);
    expect(bounded.exact).toBe(false);
    expect(bounded.parts.map((part) => part.op)).toEqual(['equal', 'delete', 'insert', 'equal']);
    expect(bounded.parts[0]!.text).toBe('Start. ');
    expect(bounded.parts[3]!.text).toBe(' End.');
    expect(sides(bounded.parts)).toEqual({ before, after });
    expect(diffWords(before, after, 9_801).exact).toBe(true);
  });

  it('compares two entries of the largest size (32,768 characters) differing in one word within the bound', () => {
    const body = Array.from({ length: 5_000 }, (_, index) => `w${index % 97}`).join(' ');
    const before = `${body} tail`.slice(0, 32_768);
    const after = before.replace('w50 ', 'changed ');
    const diff = diffWords(before, after);
    expect(diff.exact).toBe(true);
    expect(changed(diff.parts, 'delete')).toEqual(['w50']);
    expect(changed(diff.parts, 'insert')).toEqual(['changed']);
  });
});

describe('fieldChanges', () => {
  const base: VersionFields = {
    kind: 'note',
    state: 'active',
    tags: ['tea'],
    pinned: false,
    occurred_at: null,
    metadata: { a: 1, b: { c: [1, 2] } },
    sources: [{ source_id: 'chat', locator: 'msg-1' }],
    position: null,
  };

  it('lists nothing when only the text (or key order of the metadata) differs', () => {
    expect(fieldChanges(base, { ...base, metadata: { b: { c: [1, 2] }, a: 1 } })).toEqual([]);
  });

  it('lists each changed field with its old and new value in words', () => {
    expect(
      fieldChanges(base, {
        ...base,
        kind: 'preference',
        state: 'inactive',
        tags: ['tea', 'morning'],
        pinned: true,
        occurred_at: '2026-05-01T08:00:00Z',
        metadata: { a: 2 },
        sources: [],
        position: { source_id: 'doc', order: [1, 4] },
      }),
    ).toEqual([
      { field: 'State', before: 'active', after: 'forgotten' },
      { field: 'Kind', before: 'note', after: 'preference' },
      { field: 'Tags', before: 'tea', after: 'tea, morning' },
      { field: 'Pinned', before: 'no', after: 'yes' },
      { field: 'Occurred at', before: 'none', after: '2026-05-01T08:00:00Z' },
      { field: 'Sources', before: 'chat (msg-1)', after: 'none' },
      { field: 'Position', before: 'none', after: 'doc @ 1.4' },
      { field: 'Metadata', before: '{"a":1,"b":{"c":[1,2]}}', after: '{"a":2}' },
    ]);
  });

  it('writes JSON with sorted keys at every depth', () => {
    expect(canonicalJson({ z: [{ y: 1, x: 2 }], a: null })).toBe('{"a":null,"z":[{"x":2,"y":1}]}');
  });
});
