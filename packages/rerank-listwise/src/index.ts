export { buildListwisePrompt, type ListwisePrompt } from './listwise-prompt.js';
export { createListwiseReranker, type ListwiseRerankerOptions } from './listwise-reranker.js';
export { type ListwiseOutput, listwiseOutputSchema } from './output-schema.js';
export {
  LISTWISE_CANDIDATE_TEXT_BUDGET_BYTES,
  LISTWISE_POLICY_ID,
  LISTWISE_SYSTEM_PROMPT,
} from './policy.js';
export { type TruncatedText, truncateUtf8 } from './truncate-utf8.js';
