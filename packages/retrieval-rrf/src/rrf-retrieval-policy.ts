import type { Bm25Parameters, RetrievalPolicy } from '@powercontext/memory-core';
import { admitLexical, admitVector } from './admission.js';
import { fuseReciprocalRank, RRF_K } from './reciprocal-rank-fusion.js';

export const RRF_RETRIEVAL_POLICY_ID = 'powercontext.retrieval.rrf.v1';

/**
 * BM25 defaults measured on short conversational memory (LoCoMo dev turns): k1 0.8, no length
 * normalisation (b 0), BM25+ delta 0.5. Documents of very uneven length may prefer b 0.75.
 */
export const DEFAULT_BM25: Bm25Parameters = { k1: 0.8, b: 0, delta: 0.5 };

export interface RrfRetrievalPolicyOptions {
  /** Changing any parameter changes behaviour: give the policy a new id. */
  id?: string;
  bm25?: Partial<Bm25Parameters>;
  rrfK?: number;
  /** Channel over-fetch: max(multiplier x coarse limit, floor). Defaults 4 and 32. */
  fetchMultiplier?: number;
  fetchFloor?: number;
}

/** The coarse-path policy of RFC 0080: admission rules, channel over-fetch and RRF with k = 60. */
export function createRrfRetrievalPolicy(options: RrfRetrievalPolicyOptions = {}): RetrievalPolicy {
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  const k = options.rrfK ?? RRF_K;
  const multiplier = options.fetchMultiplier ?? 4;
  const floor = options.fetchFloor ?? 32;
  return {
    id: options.id ?? RRF_RETRIEVAL_POLICY_ID,
    bm25,
    channelFetchLimit: (coarseLimit) => Math.max(multiplier * coarseLimit, floor),
    admitLexical,
    admitVector,
    fuse: (channels, limit, toHit) => fuseReciprocalRank(channels, limit, toHit, k),
  };
}
