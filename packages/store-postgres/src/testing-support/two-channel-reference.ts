import { DEFAULT_BM25, RRF_K } from '@powercontext/retrieval-rrf';

/**
 * The two-channel search of RFC 0002 that the N-channel search must answer exactly with fts and vector
 * only (RFC 0013, `describeTwoChannelParityContract`): the shipped BM25 and RRF constants, with the
 * vector channel weighted `vector`.
 */
export const twoChannelReference = (vector: number) => ({
  bm25: DEFAULT_BM25,
  rrfK: RRF_K,
  weights: { fts: 1, vector },
  fetchMultiplier: 4,
  fetchFloor: 32,
  lexicalFallback: true,
});
