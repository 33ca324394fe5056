export {
  admitChannel,
  admitLexical,
  admitLexicalFallback,
  admitVector,
  requiredMatchedTerms,
} from './admission.js';
export {
  type ChannelWeights,
  EQUAL_CHANNEL_WEIGHTS,
  fuseReciprocalRank,
  RRF_K,
} from './reciprocal-rank-fusion.js';
export {
  createRrfRetrievalPolicy,
  DEFAULT_BM25,
  DEFAULT_CHANNELS,
  DEFAULT_CONTEXT_WEIGHTS,
  RRF_RETRIEVAL_POLICY_FAMILY,
  type RrfRetrievalPolicyOptions,
} from './rrf-retrieval-policy.js';
