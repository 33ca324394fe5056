import type { InferenceUsage } from './inference-usage.js';

/** Stable codes of inference failures. Transports map timeout and unavailable to 503. */
export type InferenceErrorCode = 'inference_timeout' | 'inference_unavailable' | 'inference_invalid_output';

export interface InferenceErrorOptions {
  cause?: unknown;
  /** Defaults to true for timeouts and outages, false for invalid output. */
  retryable?: boolean;
  /** What was spent before the failure, e.g. the requests actually sent. */
  usage?: InferenceUsage;
}

const marker = Symbol.for('powercontext.inference-error');

/** A model call that timed out, could not be served, or answered with something unusable. */
export class InferenceError extends Error {
  readonly [marker] = true;
  readonly code: InferenceErrorCode;
  readonly retryable: boolean;
  readonly usage: InferenceUsage | undefined;

  constructor(code: InferenceErrorCode, message: string, options: InferenceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? code !== 'inference_invalid_output';
    this.usage = options.usage;
  }

  /** True for any InferenceError, also when several copies of this package are loaded. */
  static isInstance(value: unknown): value is InferenceError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
