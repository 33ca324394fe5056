export {
  createDecisionMemoryReranker,
  type DecisionRerankerOptions,
  type DecisionRerankFailure,
  type DecisionRerankLogger,
} from './decision-reranker.js';
export { DECISION_RERANK_KIND, DECISION_RERANK_POLICY_ID, DECISION_RERANK_QUESTION } from './policy.js';
