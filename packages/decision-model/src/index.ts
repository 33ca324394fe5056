export {
  DECISION_OUTCOMES,
  DecisionFailurePolicy,
  type DecisionModel,
  type DecisionOutcome,
  type DecisionRequest,
  type DecisionResult,
  type EvaluateOptions,
} from './decision.js';
export { buildDecisionPrompt } from './decision-prompt.js';
export {
  DECISION_FAIL_OPEN_EVENT,
  type DecisionLogFields,
  type DecisionLogger,
  type FailOpenOptions,
  type FailOpenReason,
  isFailOpenWrapped,
  withFailOpen,
} from './fail-open.js';
export { createLlmDecisionModel, type LlmDecisionModelOptions } from './llm-decision-model.js';
export { DECISION_RATIONALE_MAX_CHARS, type DecisionOutput, decisionOutputSchema } from './output-schema.js';
export { DECISION_EVALUATE_POLICY_ID, DECISION_SYSTEM_PROMPT } from './policy.js';
