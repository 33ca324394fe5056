import { createHash } from 'node:crypto';
import type { Embedder } from '@powercontext/memory-core';

const DIMENSION = 256;

/**
 * Signed sparse vectors, as the local embedder makes (12 to 40 non-zero values of 256), from a hash of
 * each word, so texts that share words point the same way and equal texts tie exactly.
 */
export function createSparseEmbedder(): Embedder {
  return {
    profile: { id: 'test.signed-sparse.v1', dimension: DIMENSION, normalization: 'l2', minCosine: 0 },
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Array<number>(DIMENSION).fill(0);
        for (const word of text.toLowerCase().split(/\s+/).filter(Boolean)) {
          const digest = createHash('sha256').update(word).digest();
          for (let at = 0; at < 4; at++) {
            const slot = digest.readUInt16BE(at * 2) % DIMENSION;
            const value = (digest[8 + at]! - 127.5) / 64;
            vector[slot] = (vector[slot] ?? 0) + value;
          }
        }
        const norm = Math.hypot(...vector) || 1;
        return vector.map((value) => value / norm);
      });
    },
  };
}
