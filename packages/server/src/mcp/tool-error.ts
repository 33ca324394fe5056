import type { AccessDecision, Permission } from '../auth/principal.js';
import { ApiError } from '../http/api-error.js';
import { toApiError } from '../http/to-api-error.js';
import type { PurgeView } from '../http/wire.js';

/**
 * The error a tool call answers with, as JSON in an `isError` result: the same code, message,
 * retryable flag and details as the HTTP v1 error body, plus the suggested wait for retryable ones.
 */
export interface ToolError {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  retry_after_seconds?: number;
}

/**
 * Maps whatever a memory operation threw onto its ToolError (unknown failures: internal_error); `view`
 * says whether an entry_purged error names who purged (default: it does not).
 */
export function toToolError(error: unknown, view?: PurgeView): ToolError {
  return fromApiError(toApiError(error, view));
}

/** The error for a call the principal may not make; it never says whether the scope exists. */
export function accessDeniedError(
  decision: Exclude<AccessDecision, 'allowed'>,
  scopeId: string,
  permission: Permission,
): ToolError {
  return fromApiError(
    decision === 'scope_forbidden'
      ? new ApiError('scope_forbidden', `This API key may not use scope "${scopeId}"`)
      : new ApiError('permission_forbidden', `This API key lacks the ${permission} permission`),
  );
}

function fromApiError(error: ApiError): ToolError {
  return {
    ...error.body().error,
    ...(error.retryAfterSeconds === undefined ? {} : { retry_after_seconds: error.retryAfterSeconds }),
  };
}
