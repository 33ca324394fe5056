import { PowerContextError } from './powercontext-error.js';

/** A reranker returned a decision that breaks the port's contract. A bug, never trimmed silently. */
export class RerankerDefectError extends PowerContextError {
  readonly policyId: string;

  constructor(policyId: string, rule: string) {
    super('reranker_defect', `Reranker ${policyId} returned an invalid decision: ${rule}`);
    this.policyId = policyId;
  }
}
