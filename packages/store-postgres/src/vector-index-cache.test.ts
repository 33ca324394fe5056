import { describe, expect, it } from 'vitest';
import {
  type VectorIndexRow,
  vectorCandidates,
  vectorIndexBytes,
  vectorIndexOf,
} from './vector-index-cache.js';

/** pgvector's binary form of a sparse vector (`sparsevec_send`), from a dense array. */
function sent(dense: readonly number[]): Uint8Array {
  const indices = dense.flatMap((value, index) => (value === 0 ? [] : [index]));
  const view = new DataView(new ArrayBuffer(12 + 8 * indices.length));
  view.setInt32(0, dense.length);
  view.setInt32(4, indices.length);
  indices.forEach((index, at) => {
    view.setInt32(12 + 4 * at, index);
    view.setFloat32(12 + 4 * indices.length + 4 * at, dense[index]!);
  });
  return new Uint8Array(view.buffer);
}

function rowsOf(vectors: readonly (readonly number[] | null)[]): VectorIndexRow[] {
  return vectors.map((vector, at) => ({
    entry_version_id: `00000000-0000-4000-8000-${String(at).padStart(12, '0')}`,
    vector: vector === null ? null : sent(vector),
    purged: null,
  }));
}

/** Vectors of dimension 16 with two non-zero values: vector i holds dimensions i % 16 and (7i + 1) % 16. */
function sparseVectors(count: number): number[][] {
  return Array.from({ length: count }, (_, i) => {
    const vector = new Array<number>(16).fill(0);
    vector[i % 16] = 1 + (i % 5);
    vector[(i * 7 + 1) % 16] = -0.5 - (i % 3);
    return vector;
  });
}

describe('vectorIndexOf', () => {
  it('holds nothing when a live version has no vector: re-embedding could add it without a new revision', async () => {
    expect(await vectorIndexOf('s', 'p', 1, rowsOf([...sparseVectors(3), null]))).toBeUndefined();
  });

  it('holds nothing for dense vectors, which the exact scan scores faster', async () => {
    const dense = Array.from({ length: 8 }, (_, i) =>
      Array.from({ length: 16 }, (_, d) => 1 + ((i + d) % 4)),
    );
    expect(await vectorIndexOf('s', 'p', 1, rowsOf(dense))).toBeUndefined();
  });

  it('lays the values out by dimension, exactly as float4', async () => {
    const index = (await vectorIndexOf('s', 'p', 3, rowsOf(sparseVectors(40))))!;
    // 40 vectors of 2 non-zero values each: 80 values, counted in bytes (vectorIndexBytes).
    expect(index.size).toBe(vectorIndexBytes(40, 80, index.offsets.length - 1));
    expect(index.maxNonZero).toBe(2);
    expect(index.offsets.at(-1)).toBe(80);
    const holders = [...index.ordinals.subarray(index.offsets[0]!, index.offsets[1]!)];
    expect(holders).toEqual([0, 9, 16, 25, 32]);
  });
});

describe('vectorCandidates', () => {
  const vectors = sparseVectors(200);

  it('keeps every version the exact top k could hold, ties at the last place included', async () => {
    const index = (await vectorIndexOf('s', 'p', 1, rowsOf(vectors)))!;
    const query = new Array<number>(16).fill(0);
    query[3] = 1;
    query[5] = 0.25;
    const cosine = (vector: readonly number[]) => {
      const dot = vector.reduce((sum, value, d) => sum + value * query[d]!, 0);
      return dot / Math.hypot(...vector) / Math.hypot(...query);
    };
    for (const limit of [1, 5, 12]) {
      const kept = new Set(vectorCandidates(index, query, limit, 100));
      const ranked = vectors
        .map((vector, at) => ({ at, cosine: cosine(vector) }))
        .sort((a, b) => b.cosine - a.cosine);
      const kth = ranked[limit - 1]!.cosine;
      for (const { at, cosine: value } of ranked) {
        if (value >= kth - 1e-9)
          expect(kept.has(index.entryVersionIds[at]!), `limit ${limit}, vector ${at}`).toBe(true);
      }
      expect(kept.size).toBeLessThan(vectors.length);
    }
  });

  it('leaves the answer to the exact scan when too many versions tie or the best score about 0', async () => {
    const query = new Array<number>(16).fill(0);
    query[3] = 1;
    // 60 equal vectors tie at the first place: all 60 are candidates, more than the 50 allowed.
    const tied = (await vectorIndexOf('s', 'p', 1, rowsOf([...vectors, ...new Array(60).fill(query)])))!;
    expect(vectorCandidates(tied, query, 5, 50)).toBeUndefined();
    expect(vectorCandidates(tied, query, 5, 80)).toHaveLength(60);
    // Fewer vectors share a dimension with the query than the limit asks: those that share none (cosine
    // 0) would be candidates too.
    const index = (await vectorIndexOf('s', 'p', 1, rowsOf(vectors)))!;
    expect(vectorCandidates(index, query, 40, 100)).toBeUndefined();
    // A zero query scores every vector 0.
    expect(vectorCandidates(index, new Array<number>(16).fill(0), 5, 100)).toBeUndefined();
  });

  it('hands over the whole scope when it is no larger than the candidates allowed', async () => {
    const index = (await vectorIndexOf('s', 'p', 1, rowsOf(vectors.slice(0, 20))))!;
    expect(vectorCandidates(index, [1, ...new Array<number>(15).fill(0)], 5, 20)).toHaveLength(20);
  });
});
