import { InferenceError, type InferenceUsage } from '@powercontext/inference';
import { boundedCall } from '@powercontext/inference/testing';
import {
  DECISION_OUTCOMES,
  type DecisionModel,
  type DecisionOutcome,
  type DecisionRequest,
  type DecisionResult,
  type EvaluateOptions,
} from '../decision.js';

/** What the scripted model answers: an outcome (any string: an unknown one is invalid output), with an optional rationale. */
export type ScriptedAnswer = string | { outcome: string; rationale?: string };

export interface ScriptedDecisionModelOptions {
  /** Default `test.decision.scripted.v1`. */
  policyId?: string;
  /**
   * Plays the model: answers a request, given the call's abort signal. Throw (or reject) to fail like
   * an unreachable backend; never settle to hang. Default: always `abstain`.
   */
  decide?: (request: DecisionRequest, signal: AbortSignal) => ScriptedAnswer | Promise<ScriptedAnswer>;
  /** Token counts the model reports; absent ones stay undefined. */
  tokens?: { input?: number; output?: number };
  /** Deadline of one evaluate. Default 30 000 ms. */
  timeoutMs?: number;
}

export interface ScriptedDecisionModel extends DecisionModel {
  /** Every request, in order. */
  readonly requests: DecisionRequest[];
}

/**
 * An in-memory DecisionModel for tests. Like a raw backend it never degrades: an unknown outcome is
 * `inference_invalid_output`, a failure of the script `inference_unavailable`, its own deadline
 * `inference_timeout`, and the caller's abort rethrows the caller's reason. Each result reports one
 * call and one request. It passes the DecisionModel conformance suite.
 */
export function createScriptedDecisionModel(
  options: ScriptedDecisionModelOptions = {},
): ScriptedDecisionModel {
  const policyId = options.policyId ?? 'test.decision.scripted.v1';
  const decide = options.decide ?? (() => 'abstain');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const requests: DecisionRequest[] = [];
  return {
    policyId,
    requests,
    async evaluate(request: DecisionRequest, evaluateOptions: EvaluateOptions = {}): Promise<DecisionResult> {
      evaluateOptions.signal?.throwIfAborted();
      requests.push(request);
      const usage: InferenceUsage = { requests: 1, calls: 1 };
      const answer = await boundedCall((signal) => decide(request, signal), {
        signal: evaluateOptions.signal,
        timeoutMs,
        usage,
      });
      if (options.tokens?.input !== undefined) usage.inputTokens = options.tokens.input;
      if (options.tokens?.output !== undefined) usage.outputTokens = options.tokens.output;
      const { outcome, rationale } =
        typeof answer === 'string' ? { outcome: answer, rationale: undefined } : answer;
      if (!DECISION_OUTCOMES.includes(outcome as DecisionOutcome)) {
        throw new InferenceError(
          'inference_invalid_output',
          `The model answered the unknown outcome ${JSON.stringify(outcome)}`,
          {
            usage,
          },
        );
      }
      const result: DecisionResult = {
        outcome: outcome as DecisionOutcome,
        policyId,
        usage,
        usedFallback: false,
      };
      if (rationale !== undefined) result.rationale = rationale;
      return result;
    },
  };
}
