import type { ErrorResponse, ServerErrorCode } from './api-types.js';

/**
 * Codes of PowerContextApiError: the server's error codes, plus two of the client's own:
 * `network_error` (no HTTP answer at all; status 0) and `invalid_response` (an answer that is not the
 * API's JSON, e.g. from a proxy). A newer server may send a code this version does not list.
 */
export type PowerContextApiErrorCode = ServerErrorCode | 'network_error' | 'invalid_response' | (string & {});

export type PowerContextApiErrorDetails = NonNullable<ErrorResponse['error']['details']>;

export interface PowerContextApiErrorOptions {
  status: number;
  retryable: boolean;
  details?: PowerContextApiErrorDetails | undefined;
  retryAfterSeconds?: number | undefined;
  requestId?: string | undefined;
  cause?: unknown;
}

const marker = Symbol.for('powercontext.client.api-error');

/** A failed API call: the server's error body (or a transport failure) with its code and retry advice. */
export class PowerContextApiError extends Error {
  readonly [marker] = true;
  readonly code: PowerContextApiErrorCode;
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** True when repeating the same call later may succeed (conflicts, outages, timeouts, rate limits). */
  readonly retryable: boolean;
  /** For invalid_request: `issues`, each field (a dotted snake_case path) and the rule it broke. */
  readonly details: PowerContextApiErrorDetails | undefined;
  /** The server's Retry-After, in seconds, when it sent one. */
  readonly retryAfterSeconds: number | undefined;
  /** The x-request-id of the answer, to find the call in the server's logs. */
  readonly requestId: string | undefined;

  constructor(code: PowerContextApiErrorCode, message: string, options: PowerContextApiErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PowerContextApiError';
    this.code = code;
    this.status = options.status;
    this.retryable = options.retryable;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.requestId = options.requestId;
  }

  /** True for a PowerContextApiError, also from another copy of this package. */
  static isInstance(value: unknown): value is PowerContextApiError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
