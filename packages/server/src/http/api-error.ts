/**
 * The closed set of error codes the HTTP API answers with, and the status each one maps to. Memory
 * and inference errors keep their own codes (store_unavailable becomes database_unavailable, the name
 * the API contract uses); the transport adds its own (unauthenticated, rate_limited, ...).
 */
export const ERROR_STATUS = {
  malformed_request: 400,
  invalid_request: 422,
  invalid_citation: 422,
  idempotency_key_reused: 422,
  unauthenticated: 401,
  scope_forbidden: 403,
  permission_forbidden: 403,
  host_forbidden: 403,
  origin_forbidden: 403,
  not_found: 404,
  entry_purged: 410,
  scope_purged: 410,
  method_not_allowed: 405,
  revision_conflict: 409,
  revision_not_visible: 409,
  capability_unavailable: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  configuration_error: 500,
  store_incompatible: 500,
  rerank_out_of_bounds: 500,
  reranker_defect: 500,
  inference_invalid_output: 502,
  inference_timeout: 503,
  inference_unavailable: 503,
  embedding_failed: 503,
  rerank_failure: 503,
  rerank_deadline: 503,
  rerank_saturated: 503,
  not_ready: 503,
  database_unavailable: 503,
  request_timeout: 503,
  write_outcome_unknown: 504,
} as const;

export type ApiErrorCode = keyof typeof ERROR_STATUS;
export type ApiErrorStatus = (typeof ERROR_STATUS)[ApiErrorCode];

export const API_ERROR_CODES = Object.keys(ERROR_STATUS) as [ApiErrorCode, ...ApiErrorCode[]];

export interface FieldIssueBody {
  field: string;
  rule: string;
}

export interface ApiErrorOptions {
  retryable?: boolean;
  /** Seconds a client should wait before retrying; sent as Retry-After. */
  retryAfterSeconds?: number;
  /** Overrides the status of the code (e.g. capability_unavailable for a failed query embedding: 503). */
  status?: ApiErrorStatus;
  details?: { issues?: FieldIssueBody[] } & Record<string, unknown>;
  /** Extra response headers, e.g. WWW-Authenticate. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error answered as `{ error: { code, message, retryable, details? } }` with its status. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly status: ApiErrorStatus;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly details: ApiErrorOptions['details'];
  readonly headers: Record<string, string>;

  constructor(code: ApiErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details;
    this.headers = {
      ...options.headers,
      ...(options.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': String(options.retryAfterSeconds) }),
    };
  }

  body() {
    return {
      error: {
        code: this.code,
        message: this.message,
        retryable: this.retryable,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}
