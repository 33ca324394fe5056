import { PowerContextError } from './powercontext-error.js';

/** The embedder could not embed the given texts (timeout, provider outage, malformed output). */
export class EmbeddingFailedError extends PowerContextError {
  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super('embedding_failed', message, { retryable: true, ...options });
  }
}
