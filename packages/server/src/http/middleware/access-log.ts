import type { MiddlewareHandler } from 'hono';
import type { Logger as PinoLogger } from 'pino';
import type { AppEnv } from '../app-env.js';

/** One structured line per request: never the body, the query text or the key, only who and what. */
export function accessLog(logger: PinoLogger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const began = performance.now();
    await next();
    const status = c.res.status;
    const fields = {
      event: 'http.request',
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status,
      duration_ms: Math.round((performance.now() - began) * 10) / 10,
      key_id: c.get('principal')?.keyId,
      error_code: c.get('errorCode'),
    };
    if (status >= 500) logger.error(fields);
    else if (status >= 400) logger.warn(fields);
    else logger.info(fields);
  };
}
