import { PowerContextError } from './powercontext-error.js';

/** Every rerank slot stayed busy for the whole queue timeout. Retrying later may succeed. */
export class RerankSaturatedError extends PowerContextError {
  constructor(maxInFlight: number, queueTimeoutMs: number) {
    super('rerank_saturated', `All ${maxInFlight} rerank slots stayed busy for ${queueTimeoutMs} ms`, {
      retryable: true,
    });
  }
}
