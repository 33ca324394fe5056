/** Every stable error code the memory packages raise. Transports map these to statuses. */
export type PowerContextErrorCode =
  | 'invalid_request'
  | 'revision_conflict'
  | 'revision_not_visible'
  | 'not_found'
  | 'entry_purged'
  | 'scope_purged'
  | 'capability_unavailable'
  | 'invalid_citation'
  | 'store_unavailable'
  | 'store_incompatible'
  | 'embedding_failed'
  | 'configuration_error'
  | 'rerank_out_of_bounds'
  | 'reranker_defect'
  | 'rerank_saturated'
  | 'rerank_deadline'
  | 'rerank_failure'
  | 'rerank_evidence_mismatch'
  | 'idempotency_key_reused';

const marker = Symbol.for('powercontext.error');

export interface PowerContextErrorOptions {
  cause?: unknown;
  retryable?: boolean;
}

/** Root of every error raised by PowerContext packages. Check with `PowerContextError.isInstance`. */
export class PowerContextError extends Error {
  readonly [marker] = true;
  readonly code: PowerContextErrorCode;
  readonly retryable: boolean;

  constructor(code: PowerContextErrorCode, message: string, options: PowerContextErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }

  /** True for any PowerContext error, also across duplicated package copies. */
  static isInstance(value: unknown): value is PowerContextError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
