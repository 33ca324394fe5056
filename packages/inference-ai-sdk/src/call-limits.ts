import { InferenceError, type InferenceUsage } from '@powercontext/inference';
import type { FieldIssue } from '@powercontext/memory-core';
import { toInferenceError } from './to-inference-error.js';

/** How long one adapter operation may take and how many attempts each provider call gets. */
export interface CallLimits {
  /** Deadline of the whole operation in seconds: requests, retries and backoff delays together. */
  timeoutSeconds: number;
  /** Attempts per provider call, the first one included (AI SDK `maxRetries` = maxRequests - 1). */
  maxRequests: number;
}

/** Appends an issue for each limit out of range (field names as in the adapters' options). */
export function checkCallLimits(limits: CallLimits, issues: FieldIssue[]): void {
  // The upper bound keeps the deadline far below the largest delay a Node timer accepts (~24.8 days).
  if (
    !Number.isFinite(limits.timeoutSeconds) ||
    limits.timeoutSeconds <= 0 ||
    limits.timeoutSeconds > 86_400
  ) {
    issues.push({ field: 'timeoutSeconds', rule: 'must be a positive number of seconds, at most 86400' });
  }
  if (!Number.isInteger(limits.maxRequests) || limits.maxRequests < 1) {
    issues.push({ field: 'maxRequests', rule: 'must be an integer of at least 1' });
  }
}

export interface Deadline {
  /** Aborts when the caller's signal aborts or the deadline passes. Give it to every AI SDK call. */
  signal: AbortSignal;
  /**
   * The failure to report for `error`, which ended the operation: `inference_timeout` when the
   * deadline passed, otherwise the classification of `toInferenceError`; `usage` is what was spent
   * until then. When the caller aborted, it THROWS the caller's abort reason as is instead, so call
   * it first thing in a catch block.
   */
  failure(error: unknown, usage: InferenceUsage): InferenceError;
}

/** Starts the clock of one operation bounded by `timeoutSeconds` and the caller's own signal. */
export function startDeadline(timeoutSeconds: number, callerSignal: AbortSignal | undefined): Deadline {
  const timeoutSignal = AbortSignal.timeout(Math.max(1, Math.round(timeoutSeconds * 1000)));
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeoutSignal]) : timeoutSignal;
  return {
    signal,
    failure(error, usage) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeoutSignal.aborted) {
        return new InferenceError('inference_timeout', `No answer within ${timeoutSeconds} s`, {
          cause: error,
          usage,
        });
      }
      return toInferenceError(error, usage);
    },
  };
}
