import { InferenceError } from '@powercontext/inference';
import {
  CapabilityUnavailableError,
  EntryPurgedError,
  PowerContextError,
  type PowerContextErrorCode,
  ScopePurgedError,
  ValidationError,
} from '@powercontext/memory-core';
import { ApiError, type ApiErrorCode } from './api-error.js';
import { type PurgeView, toPurgeInfo, toScopeTombstone } from './wire.js';

/** `entries.0.sourceId` -> `entries.0.source_id`: the runtime names fields in camelCase, the wire in snake_case. */
export function toWireField(field: string): string {
  return field.replace(/[A-Z]/gu, (letter) => `_${letter.toLowerCase()}`);
}

/** The whole message of a 500 internal_error; the log keeps the cause. */
const INTERNAL_MESSAGE = 'The server failed to handle the request';

/** Seconds to suggest in Retry-After for retryable failures of the server or its dependencies. */
const RETRY_AFTER_SECONDS: Partial<Record<ApiErrorCode, number>> = {
  inference_timeout: 1,
  inference_unavailable: 1,
  embedding_failed: 1,
  rerank_failure: 1,
  rerank_deadline: 1,
  rerank_saturated: 1,
  database_unavailable: 1,
  revision_not_visible: 1,
  not_ready: 1,
  request_timeout: 1,
  write_outcome_unknown: 1,
};

const CORE_CODES: Record<PowerContextErrorCode, ApiErrorCode> = {
  invalid_request: 'invalid_request',
  revision_conflict: 'revision_conflict',
  revision_not_visible: 'revision_not_visible',
  not_found: 'not_found',
  entry_purged: 'entry_purged',
  scope_purged: 'scope_purged',
  capability_unavailable: 'capability_unavailable',
  invalid_citation: 'invalid_citation',
  store_unavailable: 'database_unavailable',
  store_incompatible: 'store_incompatible',
  embedding_failed: 'embedding_failed',
  configuration_error: 'configuration_error',
  rerank_out_of_bounds: 'rerank_out_of_bounds',
  reranker_defect: 'reranker_defect',
  rerank_saturated: 'rerank_saturated',
  rerank_deadline: 'rerank_deadline',
  rerank_failure: 'rerank_failure',
  // Raised only when the runtime's own evidence binding is inconsistent: a defect, never the request.
  rerank_evidence_mismatch: 'internal_error',
  idempotency_key_reused: 'idempotency_key_reused',
};

/**
 * Maps any thrown value to the API error it is answered with. Unknown failures become internal_error.
 * `view` says whether an `entry_purged` answer names who purged (default: it does not).
 */
export function toApiError(error: unknown, view: PurgeView = { purgedBy: false }): ApiError {
  if (error instanceof ApiError) return error;
  if (InferenceError.isInstance(error)) {
    return new ApiError(error.code, error.message, {
      retryable: error.retryable,
      ...retryAfter(error.code, error.retryable),
      cause: error,
    });
  }
  if (PowerContextError.isInstance(error)) {
    if (ValidationError.isValidationError(error)) {
      const issues = (error as ValidationError).issues.map((issue) => ({
        field: toWireField(issue.field),
        rule: issue.rule.replace(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/gu, toWireField),
      }));
      return new ApiError('invalid_request', invalidMessage(issues), { details: { issues }, cause: error });
    }
    const code = CORE_CODES[error.code] ?? 'internal_error';
    if (error instanceof CapabilityUnavailableError || error.code === 'capability_unavailable') {
      // A query that could not be embedded is an outage of the embedder; a missing index is the
      // scope's state, which only the re-embed command changes.
      const transient = (error as CapabilityUnavailableError).capability === 'query_embedding';
      return new ApiError(code, error.message, {
        retryable: transient,
        ...(transient ? { status: 503 as const, retryAfterSeconds: 1 } : {}),
        details: { capability: (error as CapabilityUnavailableError).capability },
        cause: error,
      });
    }
    if (error instanceof EntryPurgedError || error.code === 'entry_purged') {
      const { entryId, purge } = error as EntryPurgedError;
      return new ApiError(code, error.message, {
        details: { entry_id: entryId, purge: toPurgeInfo(purge, view) },
        cause: error,
      });
    }
    if (error instanceof ScopePurgedError || error.code === 'scope_purged') {
      const { tombstone } = error as ScopePurgedError;
      return new ApiError(code, error.message, {
        details: { scope: toScopeTombstone(tombstone, view) },
        cause: error,
      });
    }
    // A typed error that signals a defect (internal_error) says no more than an unexpected one.
    return new ApiError(code, code === 'internal_error' ? INTERNAL_MESSAGE : error.message, {
      retryable: error.retryable,
      ...retryAfter(code, error.retryable),
      cause: error,
    });
  }
  return new ApiError('internal_error', INTERNAL_MESSAGE, { cause: error });
}

export function invalidMessage(issues: readonly { field: string; rule: string }[]): string {
  const first = issues[0];
  if (!first) return 'Invalid request';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `Invalid request: ${first.field}: ${first.rule}${more}`;
}

function retryAfter(code: ApiErrorCode, retryable: boolean) {
  const seconds = RETRY_AFTER_SECONDS[code];
  return retryable && seconds !== undefined ? { retryAfterSeconds: seconds } : {};
}
