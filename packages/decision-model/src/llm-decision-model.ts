import type { StructuredGenerator } from '@powercontext/inference';
import type { DecisionModel, DecisionRequest, DecisionResult, EvaluateOptions } from './decision.js';
import { buildDecisionPrompt } from './decision-prompt.js';
import { decisionOutputSchema } from './output-schema.js';
import { DECISION_EVALUATE_POLICY_ID, DECISION_SYSTEM_PROMPT } from './policy.js';

export interface LlmDecisionModelOptions {
  /** The generation model adapter; it owns temperature, timeouts, retries and output validation. */
  generator: StructuredGenerator;
}

/**
 * The raw LLM decision backend: per `evaluate`, exactly one structured generation request with
 * DECISION_SYSTEM_PROMPT, the request framed as JSON (see `buildDecisionPrompt`), and
 * `decisionOutputSchema`. The result carries the generator's usage and `usedFallback: false`.
 *
 * It never degrades: generator errors (timeout, unavailable, invalid output, the caller's abort)
 * propagate unchanged. Advisory consumers wrap it in `withFailOpen`; fail-closed roles use it as is.
 */
export function createLlmDecisionModel(options: LlmDecisionModelOptions): DecisionModel {
  const { generator } = options;
  return {
    policyId: DECISION_EVALUATE_POLICY_ID,
    async evaluate(request: DecisionRequest, evaluateOptions?: EvaluateOptions): Promise<DecisionResult> {
      const { output, usage } = await generator.generate({
        system: DECISION_SYSTEM_PROMPT,
        prompt: buildDecisionPrompt(request),
        schema: decisionOutputSchema,
        signal: evaluateOptions?.signal,
      });
      const result: DecisionResult = {
        outcome: output.outcome,
        policyId: DECISION_EVALUATE_POLICY_ID,
        usage,
        usedFallback: false,
      };
      if (output.rationale !== undefined) result.rationale = output.rationale;
      return result;
    },
  };
}
