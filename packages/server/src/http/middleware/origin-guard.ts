import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';
import type { AppEnv, OriginPolicy } from '../app-env.js';

const ALLOWED_HEADERS =
  'authorization, content-type, x-request-id, idempotency-key, mcp-protocol-version, last-event-id';
const EXPOSED_HEADERS = 'retry-after, x-request-id, idempotent-replayed';

/**
 * Guards against DNS rebinding and cross-origin pages. Without keys: a `Host` that is not a loopback
 * name is refused (403 `host_forbidden`), and so is an `Origin` that is not a loopback page (403
 * `origin_forbidden`). With keys: an `Origin` that is neither the server's own (same host as `Host`)
 * nor in the allow-list is refused; allowed foreign origins get CORS answers (preflight included)
 * without credentials, and every other origin gets none, so a browser gives them no response to read.
 * Requests without `Origin` (curl, SDKs, MCP clients) are not affected beyond the `Host` rule.
 */
export function originGuard(policy: OriginPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (policy.loopbackOnly && !isLoopback(hostnameOf(host))) {
      throw new ApiError(
        'host_forbidden',
        'This server has no API keys and answers only to loopback host names (127.0.0.1, [::1], localhost)',
      );
    }
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    const page = parseOrigin(origin);
    const sameOrigin = page !== undefined && page.host === host.toLowerCase();
    const allowed = policy.loopbackOnly
      ? page !== undefined && isLoopback(page.hostname)
      : sameOrigin || (page !== undefined && policy.allowedOrigins.has(page.origin));
    if (!allowed) {
      throw new ApiError(
        'origin_forbidden',
        `Requests from pages of origin ${JSON.stringify(origin)} are not allowed`,
      );
    }
    const cors = !sameOrigin;
    if (cors && c.req.method === 'OPTIONS') {
      return c.body(null, 204, {
        'access-control-allow-origin': page!.origin,
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
        vary: 'Origin',
      });
    }
    await next();
    if (cors) {
      c.res.headers.set('access-control-allow-origin', page!.origin);
      c.res.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      c.res.headers.append('vary', 'Origin');
    }
  };
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]` or `[v6]:port`), lower case. */
function hostnameOf(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

/**
 * 127.0.0.0/8, ::1 and localhost: the one loopback rule, for the address the server binds to and for
 * the host names it answers to (an IPv6 name may come in brackets, as in `Host` and `Origin`).
 */
export function isLoopback(host: string): boolean {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** An `Origin` header of an http(s) page, normalized; undefined for `null` and anything else. */
function parseOrigin(value: string): { origin: string; host: string; hostname: string } | undefined {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.toLowerCase()) {
      return undefined;
    }
    return { origin: url.origin, host: url.host, hostname: url.hostname };
  } catch {
    return undefined;
  }
}

/** Parses `POWERCONTEXT_SERVER_ALLOWED_ORIGINS`: comma-separated `scheme://host[:port]` origins. */
export function parseAllowedOrigins(value: string | undefined): { origins: Set<string>; invalid?: string } {
  const origins = new Set<string>();
  for (const item of (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const parsed = parseOrigin(item.toLowerCase().replace(/\/$/u, ''));
    if (!parsed) return { origins, invalid: item };
    origins.add(parsed.origin);
  }
  return { origins };
}
