export { type CrossEncoderRerankerOptions, createCrossEncoderReranker } from './cross-encoder-reranker.js';
export { CROSS_ENCODER_DOCUMENT_BUDGET_BYTES, CROSS_ENCODER_POLICY_ID } from './policy.js';
export { scoresFromResults } from './scores-from-results.js';
