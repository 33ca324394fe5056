import type { InferenceUsage } from '@powercontext/inference';

/** The only answers a decision model gives. */
export type DecisionOutcome = 'yes' | 'no' | 'abstain';

export const DECISION_OUTCOMES: readonly DecisionOutcome[] = ['yes', 'no', 'abstain'];

/** One narrow question about one subject, with the evidence to judge it by. All of it is data. */
export interface DecisionRequest {
  /** Low-cardinality label of the consumer, e.g. `memory.rerank` or `memory.write_gate`. */
  decisionKind: string;
  question: string;
  subject: string;
  evidence: readonly string[];
}

export interface DecisionResult {
  outcome: DecisionOutcome;
  policyId: string;
  usage: InferenceUsage;
  rationale?: string;
  /**
   * True when the backend failed and the fail-open envelope answered `abstain` in its place. Not a
   * verdict. (Unrelated to MemoryRerankDecision.usedFallback, which means "coarse fallback ranks".)
   */
  usedFallback: boolean;
}

export interface EvaluateOptions {
  signal?: AbortSignal;
}

/** Provider-neutral decision model: answers one question per call. */
export interface DecisionModel {
  readonly policyId: string;
  evaluate(request: DecisionRequest, options?: EvaluateOptions): Promise<DecisionResult>;
}

/**
 * How a consumer role wants decision failures handled. Declared by the role, resolved by composition;
 * not a property of the backend. A role that declares nothing gets fail_open.
 *
 * fail_open: composition wraps the role's handle in `withFailOpen`, the single fail-open envelope.
 * fail_closed: the role gets the unwrapped backend, so its failures propagate.
 */
export const DecisionFailurePolicy = {
  failOpen: 'fail_open',
  failClosed: 'fail_closed',
} as const;
export type DecisionFailurePolicy = (typeof DecisionFailurePolicy)[keyof typeof DecisionFailurePolicy];
