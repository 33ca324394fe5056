import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';

/**
 * Headers every answer carries: memory text is private data, so nothing is cached or sniffed into
 * another type, and no page may frame an answer. A handler that sets its own (a page with its own
 * Content-Security-Policy, say) keeps it.
 */
const HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(HEADERS)) {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  };
}
