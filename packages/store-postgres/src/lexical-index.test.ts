import { describe, expect, it } from 'vitest';
import {
  applyLexicalDelta,
  documentFrequency,
  IdfTable,
  type LexicalIndexRow,
  lexicalIndexBytes,
  lexicalIndexOf,
  type ScopeLexicalIndex,
} from './lexical-index.js';
import { lexicalIndexRow as row } from './testing-support/lexical-index-rows.js';

function postings(
  lexeme: string,
  pairs: readonly [ord: number, tf: number][],
  idf?: number,
): LexicalIndexRow {
  const ords = new DataView(new ArrayBuffer(4 * pairs.length));
  const tfs = new DataView(new ArrayBuffer(8 * pairs.length));
  pairs.forEach(([ord, tf], at) => {
    ords.setInt32(4 * at, ord);
    tfs.setFloat64(8 * at, tf);
  });
  return row('lexeme', {
    lexeme,
    value: idf ?? null,
    ords: new Uint8Array(ords.buffer),
    tfs: new Uint8Array(tfs.buffer),
  });
}

const doc = (ord: number, id: string) =>
  row('doc', { ord, entry_version_id: `v-${id}`, entry_id: `e-${id}`, active: true, value: 3 });

/** What the index holds, counted from its arrays: its size must always say the same. */
function recounted(index: ScopeLexicalIndex): number {
  let chars = 0;
  let slots = 0;
  for (const [lexeme, list] of index.postings) {
    chars += lexeme.length;
    slots += list.docs.length;
  }
  return lexicalIndexBytes(index.active.length, index.postings.size, chars, slots);
}

describe('a lexical index that follows deltas', () => {
  it('keeps its byte count equal to what its arrays hold, write after write', async () => {
    const read = [
      row('stats', { value: 2, average_length: 3 }),
      doc(0, 'a'),
      doc(1, 'b'),
      postings('harbour', [
        [0, 1],
        [1, 2],
      ]),
      postings('lantern', [[1, 1]]),
    ];
    const index = (await lexicalIndexOf('s', 1, read, new IdfTable()))!;
    expect(index.size).toBe(recounted(index));
    for (let write = 0; write < 50; write++) {
      const previous = `${write === 0 ? 'b' : `n${write - 1}`}`;
      applyLexicalDelta(index, 2 + write, [
        row('stats', { value: 2 + write, average_length: 3 }),
        // A new version of the previous one: its old projection goes, the new one comes.
        row('gone', { entry_version_id: `v-${previous}` }),
        doc(0, `n${write}`),
        postings('harbour', [[0, 1]]),
        postings(`word${write}`, [[0, 3]]),
      ]);
      expect(index.size).toBe(recounted(index));
    }
    expect(index.revision).toBe(51);
    // 'a' and the newest version hold harbour; the 50 superseded projections do not count.
    expect(documentFrequency(index, 'harbour')).toBe(2);
    expect(documentFrequency(index, 'lantern')).toBe(0);
    expect(documentFrequency(index, 'word49')).toBe(1);
    expect(index.superseded).toBe(50);
    expect([...index.docOf.keys()].sort()).toEqual(['v-a', 'v-n49']);
  });
});
