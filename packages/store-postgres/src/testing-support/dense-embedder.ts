import { createHash } from 'node:crypto';
import type { Embedder } from '@powercontext/memory-core';

/** Dense pseudo-random unit vectors, a fixed one per text: the kind of vector HNSW is for. */
export function denseEmbedder(dimension: number): Embedder {
  const vectorOf = (text: string) => {
    const values = Array.from({ length: dimension }, (_, index) => {
      const digest = createHash('sha256').update(`${text}#${index}`).digest();
      return digest.readUInt32BE(0) / 2 ** 32 - 0.5;
    });
    const norm = Math.hypot(...values);
    return values.map((value) => value / norm);
  };
  return {
    profile: { id: 'test.dense.v1', dimension, normalization: 'l2', minCosine: -1 },
    embed: async (texts) => texts.map(vectorOf),
  };
}
