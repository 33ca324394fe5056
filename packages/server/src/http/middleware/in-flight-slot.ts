import type { MiddlewareHandler } from 'hono';
import type { KeyAdmission } from '../../auth/key-admission.js';
import type { AppEnv } from '../app-env.js';

/**
 * Holds one of the caller's in-flight slots until the handler has really finished (after a request
 * timeout too, until the aborted work stops), so a key cannot pile up work that outlives its answers.
 * A key with every slot in use is answered 429 `rate_limited` at once.
 */
export function inFlightSlot(admission: KeyAdmission | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!admission || c.req.method !== 'POST') return next();
    const release = admission.enter(c.get('principal'));
    try {
      await next();
    } finally {
      release();
    }
  };
}
