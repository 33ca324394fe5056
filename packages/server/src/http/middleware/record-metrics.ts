import type { MiddlewareHandler } from 'hono';
import type { ServerMetrics } from '../../metrics/metrics.js';
import type { AppEnv } from '../app-env.js';

/**
 * Counts every answered request by route and status code for /metrics. The route is the registered
 * path the request matched; anything else counts as `other`, so a scan of made-up paths cannot grow
 * the number of series.
 */
export function recordMetrics(
  metrics: ServerMetrics,
  routes: () => readonly { path: string; method: string }[],
): MiddlewareHandler<AppEnv> {
  let known: Set<string> | undefined;
  return async (c, next) => {
    const began = performance.now();
    await next();
    known ??= new Set(
      routes()
        .filter((route) => route.method !== 'ALL')
        .map((route) => route.path),
    );
    const path = c.req.path;
    const route = known.has(path) || path === '/mcp' ? path : 'other';
    metrics.request(route, c.req.method, c.res.status, (performance.now() - began) / 1000);
  };
}
