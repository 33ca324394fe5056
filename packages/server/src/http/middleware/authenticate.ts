import type { MiddlewareHandler } from 'hono';
import { findApiKey } from '../../auth/api-keys.js';
import type { KeyAdmission } from '../../auth/key-admission.js';
import { LOCAL_PRINCIPAL } from '../../auth/principal.js';
import { ApiError } from '../api-error.js';
import type { AppEnv, AuthMode } from '../app-env.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="powercontext"' };
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/iu;

/**
 * Resolves the caller: the key named by `Authorization: Bearer <key>`, or the local principal when the
 * server runs without keys (then bound to loopback). Then, with `charge`, takes one token of the key's
 * rate limit for the request (the MCP endpoint charges each tool call instead).
 */
export function authenticate(
  auth: AuthMode,
  admission: KeyAdmission | undefined,
  { charge }: { charge: boolean },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (auth.kind === 'local') {
      c.set('principal', LOCAL_PRINCIPAL);
      return next();
    }
    const presented = bearerKey(c.req.header('authorization'));
    if (presented === undefined) {
      throw new ApiError('unauthenticated', 'Send an API key as "Authorization: Bearer <key>"', {
        headers: CHALLENGE,
      });
    }
    const key = findApiKey(auth.keys, presented);
    if (!key) throw new ApiError('unauthenticated', 'The API key is not valid', { headers: CHALLENGE });
    c.set('principal', key);
    if (charge) await admission?.charge(key);
    return next();
  };
}

/** The key of an `Authorization: Bearer <key>` header; undefined for any other header or none. */
function bearerKey(header: string | undefined): string | undefined {
  return BEARER.exec(header ?? '')?.[1];
}

/**
 * Whether the request comes from a known caller: any request of a keyless server (loopback only), or
 * one carrying a valid key. Routes open to everyone (/readyz) say more to a known caller; this takes
 * no rate-limit token and refuses nothing.
 */
export function isKnownCaller(auth: AuthMode, authorization: string | undefined): boolean {
  if (auth.kind === 'local') return true;
  const presented = bearerKey(authorization);
  return presented !== undefined && findApiKey(auth.keys, presented) !== undefined;
}
