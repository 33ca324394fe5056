import { PowerContextError } from './powercontext-error.js';

/** A rerank was asked for a pool or limit outside the bounds every policy accepts; no model was called. */
export class RerankOutOfBoundsError extends PowerContextError {
  readonly field: 'candidates' | 'limit';

  constructor(field: 'candidates' | 'limit', rule: string) {
    super('rerank_out_of_bounds', `Rerank ${field}: ${rule}`);
    this.field = field;
  }
}
