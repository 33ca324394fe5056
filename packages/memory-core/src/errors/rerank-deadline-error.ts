import { PowerContextError } from './powercontext-error.js';

/** The rerank stage of one search ran past its deadline (queue wait included). */
export class RerankDeadlineError extends PowerContextError {
  constructor(deadlineMs: number) {
    super('rerank_deadline', `The rerank stage ran past its ${deadlineMs} ms deadline`, { retryable: true });
  }
}
