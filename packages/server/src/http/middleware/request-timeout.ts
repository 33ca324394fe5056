import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';
import type { AppEnv, StartedWrite, WriteWatch } from '../app-env.js';

/**
 * Answers a request that has not finished within `ms`, and aborts the request's signal: a running
 * search (and its rerank) stops, and so does a write whose transaction has not begun, with nothing
 * written; that is 503 `request_timeout`, retryable. A write whose transaction has begun is not
 * stopped (it may be committing), so the answer is 504 `write_outcome_unknown` instead: the write may
 * or may not have committed, and the error says how to find out (repeat it with the same
 * Idempotency-Key, or read the scope's changes after the revision the write started from).
 */
export function requestTimeout(ms: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const controller = new AbortController();
    const watch: WriteWatch = { started: undefined };
    c.set('signal', AbortSignal.any([controller.signal, c.req.raw.signal]));
    c.set('writeWatch', watch);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = watch.started ? writeOutcomeUnknown(ms, watch.started) : requestTimedOut(ms);
        controller.abort(error);
        reject(error);
      }, ms);
    });
    const handled = next();
    handled.catch(() => {});
    try {
      await Promise.race([handled, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}

function requestTimedOut(ms: number): ApiError {
  return new ApiError(
    'request_timeout',
    `The request took longer than ${ms} ms; it was stopped before it wrote anything`,
    { retryable: true, retryAfterSeconds: 1 },
  );
}

function writeOutcomeUnknown(ms: number, write: StartedWrite): ApiError {
  const find =
    write.idempotencyKey === undefined
      ? `read POST /v1/memory/changes with from_revision ${write.headRevision} to see whether it did (a repeated remember reports the entries it already stored as duplicates)`
      : `repeat the request with the same Idempotency-Key to get its result once it has committed, or read POST /v1/memory/changes with from_revision ${write.headRevision}`;
  return new ApiError(
    'write_outcome_unknown',
    `The request took longer than ${ms} ms after its write began: the write may still commit. To find out, ${find}`,
    {
      retryable: true,
      retryAfterSeconds: 1,
      details: {
        scope_id: write.scopeId,
        from_revision: write.headRevision,
        ...(write.idempotencyKey === undefined ? {} : { idempotency_key: write.idempotencyKey }),
      },
    },
  );
}
