import { type EmbeddingProfile, ValidationError } from '@powercontext/memory-core';

export const LOCAL_HASH_DEFAULT_DIMENSION = 1024;
export const LOCAL_HASH_MIN_DIMENSION = 16;
export const LOCAL_HASH_MAX_DIMENSION = 4096;

/**
 * Vector admission threshold of the local hash embedder, part of its profile. Chosen by measurement
 * on the LoCoMo dev file (hybrid final recall@10 with v2 features at 1,024 dimensions: 58.4 at 0.05,
 * 58.3 at 0.2, 59.9 at 0.3): this lexical channel helps fusion most when it admits only close
 * matches. Thresholds are per profile because score distributions differ between embedders.
 */
export const LOCAL_HASH_MIN_COSINE = 0.3;

/** Profile of the local hash embedder at a dimension, e.g. `powercontext.local-hash.v2@1024`. */
export function localHashProfile(dimension: number = LOCAL_HASH_DEFAULT_DIMENSION): EmbeddingProfile {
  if (
    !Number.isInteger(dimension) ||
    dimension < LOCAL_HASH_MIN_DIMENSION ||
    dimension > LOCAL_HASH_MAX_DIMENSION
  ) {
    throw new ValidationError([
      {
        field: 'dimension',
        rule: `must be an integer from ${LOCAL_HASH_MIN_DIMENSION} to ${LOCAL_HASH_MAX_DIMENSION}`,
      },
    ]);
  }
  return {
    id: `powercontext.local-hash.v2@${dimension}`,
    dimension,
    normalization: 'l2',
    minCosine: LOCAL_HASH_MIN_COSINE,
    representation: 'lexical',
  };
}
