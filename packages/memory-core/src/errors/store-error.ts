import { PowerContextError } from './powercontext-error.js';

/** The storage backend cannot be reached or failed mid-operation. Retrying later may succeed. */
export class StoreUnavailableError extends PowerContextError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('store_unavailable', message, { ...options, retryable: true });
  }
}

/** The storage on disk cannot be opened by this build (version mismatch, locked, other settings). */
export class StoreIncompatibleError extends PowerContextError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('store_incompatible', message, options);
  }
}
