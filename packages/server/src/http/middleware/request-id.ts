import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/u;

/** Keeps a caller's well-formed x-request-id (else makes one), and echoes it on every response. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header(REQUEST_ID_HEADER);
    const id = given && ACCEPTED.test(given) ? given : randomUUID();
    c.set('requestId', id);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, id);
  };
}
