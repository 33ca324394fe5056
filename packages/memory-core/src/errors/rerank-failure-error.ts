import { PowerContextError } from './powercontext-error.js';

/** A reranker could not reach a decision (e.g. a decision backend failed under a fail-closed role). */
export class RerankFailureError extends PowerContextError {
  readonly policyId: string;

  constructor(policyId: string, message: string, options: { cause?: unknown } = {}) {
    super('rerank_failure', `Reranker ${policyId} failed: ${message}`, { ...options, retryable: true });
    this.policyId = policyId;
  }
}
