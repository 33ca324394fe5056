import { InferenceError, type InferenceUsage } from '@powercontext/inference';
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  RetryError,
  TypeValidationError,
} from 'ai';

/**
 * Classifies a failed AI SDK call that was not a timeout and not the caller's abort:
 * - no HTTP response (connection refused, reset, DNS), HTTP 408, 429 and 5xx: `inference_unavailable`,
 *   retryable;
 * - other HTTP 4xx (bad key, unknown model, bad request): `inference_unavailable`, not retryable,
 *   since the same request will fail again;
 * - a 2xx answer whose body is not what the protocol promises, or a structured answer that is not
 *   JSON or does not match its schema (`NoObjectGeneratedError`, `NoOutputGeneratedError`):
 *   `inference_invalid_output`.
 * After retries the AI SDK wraps the attempts in a RetryError; its last error decides.
 */
export function toInferenceError(error: unknown, usage: InferenceUsage): InferenceError {
  if (InferenceError.isInstance(error)) return error;
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const options = { cause: error, usage };

  if (APICallError.isInstance(last)) {
    const status = last.statusCode;
    if (status === undefined) {
      return new InferenceError(
        'inference_unavailable',
        `Cannot reach the provider: ${last.message}`,
        options,
      );
    }
    if (status >= 200 && status < 300 && !last.isRetryable) {
      return new InferenceError(
        'inference_invalid_output',
        `The provider answered HTTP ${status} with an unusable body: ${last.message}`,
        options,
      );
    }
    if (status === 408 || status === 429 || status >= 500 || last.isRetryable) {
      return new InferenceError(
        'inference_unavailable',
        `The provider failed with HTTP ${status}: ${last.message}`,
        options,
      );
    }
    return new InferenceError(
      'inference_unavailable',
      `The provider rejected the request with HTTP ${status}: ${last.message}`,
      { ...options, retryable: false },
    );
  }

  if (NoObjectGeneratedError.isInstance(last) || NoOutputGeneratedError.isInstance(last)) {
    return new InferenceError(
      'inference_invalid_output',
      `The model's answer is not the requested structure: ${last.message}`,
      options,
    );
  }

  if (
    JSONParseError.isInstance(last) ||
    TypeValidationError.isInstance(last) ||
    InvalidResponseDataError.isInstance(last) ||
    EmptyResponseBodyError.isInstance(last)
  ) {
    return new InferenceError(
      'inference_invalid_output',
      `The provider's answer is malformed: ${last.message}`,
      options,
    );
  }

  const message = last instanceof Error ? last.message : String(last);
  return new InferenceError('inference_unavailable', `The model call failed: ${message}`, {
    ...options,
    retryable: false,
  });
}
