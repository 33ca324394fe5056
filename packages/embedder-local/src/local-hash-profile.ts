import { type EmbeddingProfile, ValidationError } from '@powercontext/memory-core';

export const LOCAL_HASH_DEFAULT_DIMENSION = 256;
export const LOCAL_HASH_MIN_DIMENSION = 16;
export const LOCAL_HASH_MAX_DIMENSION = 4096;

/**
 * Vector admission threshold of the local hash embedder. Its vectors measure shared words and
 * character trigrams, so related texts score far lower than with neural embeddings: a threshold
 * such as 0.3, which suits neural models, discards nearly all candidates of this lexical embedder.
 * The value is part of the embedding profile; changing it changes what vector search admits.
 */
export const LOCAL_HASH_MIN_COSINE = 0.05;

/** Profile of the local hash embedder at a dimension, e.g. `powercontext.local-hash.v1@256`. */
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
    id: `powercontext.local-hash.v1@${dimension}`,
    dimension,
    normalization: 'l2',
    minCosine: LOCAL_HASH_MIN_COSINE,
  };
}
