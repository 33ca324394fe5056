import { describe, expect, it } from 'vitest';
import { IdfTable, lexicalIndexOf, scoreLexicalIndex } from './lexical-index.js';
import { lexicalIndexRow as row } from './testing-support/lexical-index-rows.js';
import { type VectorIndexRow, vectorCandidates, vectorIndexOf } from './vector-index-cache.js';

// RFC 0014: the indexes held in memory apply a search's filter as a predicate on entry version ids,
// before their top k, as the statements do.

describe('scoreLexicalIndex with a filter', () => {
  it('ranks only the kept versions, with their unfiltered scores, and fills the limit from them', async () => {
    const docs = 20;
    const ords = new DataView(new ArrayBuffer(4 * docs));
    const tfs = new DataView(new ArrayBuffer(8 * docs));
    for (let at = 0; at < docs; at++) {
      ords.setInt32(4 * at, at);
      tfs.setFloat64(8 * at, docs - at); // the first docs score best
    }
    const read = [
      row('stats', { value: docs, average_length: 3 }),
      ...Array.from({ length: docs }, (_, ord) =>
        row('doc', { ord, entry_version_id: `v-${ord}`, entry_id: `e-${ord}`, active: true, value: 3 }),
      ),
      row('lexeme', {
        lexeme: 'ledger',
        value: 0.5,
        ords: new Uint8Array(ords.buffer),
        tfs: new Uint8Array(tfs.buffer),
      }),
    ];
    const index = (await lexicalIndexOf('s', 1, read, new IdfTable()))!;
    const bm25 = { k1: 0.8, b: 0, delta: 0.5 };
    const all = scoreLexicalIndex(index, ['ledger'], [0.5], 3, bm25);
    expect(all.map((c) => c.entryVersionId)).toEqual(['v-0', 'v-1', 'v-2']);
    const kept = new Set(['v-17', 'v-18', 'v-19', 'v-5']);
    const filtered = scoreLexicalIndex(index, ['ledger'], [0.5], 3, bm25, (id) => kept.has(id));
    expect(filtered.map((c) => c.entryVersionId)).toEqual(['v-5', 'v-17', 'v-18']);
    const unfilteredScores = scoreLexicalIndex(index, ['ledger'], [0.5], docs, bm25);
    expect(filtered[0]!.score).toBe(unfilteredScores.find((c) => c.entryVersionId === 'v-5')!.score);
  });
});

describe('vectorCandidates with a filter', () => {
  it('hands over only kept versions, however many others score better', async () => {
    const rows: VectorIndexRow[] = Array.from({ length: 300 }, (_, at) => {
      const dense = new Array<number>(16).fill(0);
      dense[at % 16] = 1;
      dense[(at + 1) % 16] = at % 3 === 0 ? 0.5 : 0;
      return { entry_version_id: `v-${at}`, vector: sparse(dense), purged: null };
    });
    const index = (await vectorIndexOf('s', 'p', 1, rows))!;
    const query = new Array<number>(16).fill(0);
    query[3] = 1;
    // Versions holding dimension 3 itself (v-3, v-19, ...) score best; these hold it at 0.5 or not at all.
    const kept = new Set(['v-18', 'v-66', 'v-114', 'v-4']);
    const unfiltered = vectorCandidates(index, query, 2, 100)!;
    expect(unfiltered.some((id) => kept.has(id))).toBe(false);
    const candidates = vectorCandidates(index, query, 2, 100, (id) => kept.has(id));
    expect(candidates?.sort()).toEqual(['v-114', 'v-18', 'v-66']);
  });
});

/** pgvector's sparsevec_send: dimension, non-zero count, 0, then int4 indexes and float4 values. */
function sparse(dense: readonly number[]): Uint8Array {
  const nonZero = dense.flatMap((value, at) => (value === 0 ? [] : [[at, value] as const]));
  const view = new DataView(new ArrayBuffer(12 + 8 * nonZero.length));
  view.setInt32(0, dense.length);
  view.setInt32(4, nonZero.length);
  view.setInt32(8, 0);
  for (const [n, [at, value]] of nonZero.entries()) {
    view.setInt32(12 + 4 * n, at);
    view.setFloat32(12 + 4 * nonZero.length + 4 * n, value);
  }
  return new Uint8Array(view.buffer);
}
