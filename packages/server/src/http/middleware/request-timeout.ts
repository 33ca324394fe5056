import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../app-env.js';

/**
 * Answers 503 request_timeout when the handler has not finished within `ms`, and aborts the request's
 * signal so a running search (and its rerank) stops. A write that already reached the database may
 * still commit; remember is safe to repeat because exact duplicates are detected.
 */
export function requestTimeout(ms: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const controller = new AbortController();
    c.set('signal', AbortSignal.any([controller.signal, c.req.raw.signal]));
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ApiError('request_timeout', `The request took longer than ${ms} ms`, {
          retryable: true,
          retryAfterSeconds: 1,
        });
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
