import { PowerContextError } from './powercontext-error.js';

/**
 * The idempotency key was already used in this scope, within its retention time, for a different
 * request (another operation or another body). Nothing was written. Use a new key for a new request.
 */
export class IdempotencyKeyReusedError extends PowerContextError {
  readonly scopeId: string;
  readonly idempotencyKey: string;

  constructor(scopeId: string, idempotencyKey: string) {
    super(
      'idempotency_key_reused',
      `Idempotency key "${idempotencyKey}" was already used in scope "${scopeId}" for a different request; use a new key for a new request`,
    );
    this.scopeId = scopeId;
    this.idempotencyKey = idempotencyKey;
  }
}
