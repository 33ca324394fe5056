export { admitLexical, admitVector, requiredMatchedTerms } from './admission.js';
export { fuseReciprocalRank, RRF_K } from './reciprocal-rank-fusion.js';
export {
  createRrfRetrievalPolicy,
  DEFAULT_BM25,
  RRF_RETRIEVAL_POLICY_ID,
  type RrfRetrievalPolicyOptions,
} from './rrf-retrieval-policy.js';
