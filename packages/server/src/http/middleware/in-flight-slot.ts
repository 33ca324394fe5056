import type { MiddlewareHandler } from 'hono';
import type { KeyAdmission } from '../../auth/key-admission.js';
import type { AppEnv } from '../app-env.js';

/**
 * Holds one of the caller's in-flight slots until the handler has really finished (after a request
 * timeout too, until the aborted work stops), so a key cannot pile up work that outlives its answers.
 * A key with every slot in use is answered 429 `rate_limited` at once. Only requests of `methods` (the
 * route's own) take a slot; another method is answered 405 without touching the store.
 */
export function inFlightSlot(
  admission: KeyAdmission | undefined,
  methods: readonly string[] = ['POST'],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!admission || !methods.includes(c.req.method)) return next();
    const release = admission.enter(c.get('principal'));
    try {
      await next();
    } finally {
      release();
    }
  };
}
