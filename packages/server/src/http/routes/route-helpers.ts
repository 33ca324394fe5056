import type { Runtime } from '@powercontext/runtime';
import type { Context } from 'hono';
import { decideAccess, type Permission } from '../../auth/principal.js';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../app-env.js';

/** The open runtime, or 503 not_ready while it is opening or the server is shutting down. */
export function requireRuntime(runtime: () => Runtime | undefined): Runtime {
  const current = runtime();
  if (!current) {
    throw new ApiError('not_ready', 'The server is starting or shutting down', {
      retryable: true,
      retryAfterSeconds: 1,
    });
  }
  return current;
}

/**
 * Checks that the caller's key may use the scope with the permission. A key that may not use a scope
 * gets the same answer whether the scope exists or not, so it cannot probe other tenants' scopes.
 */
export function authorize(c: Context<AppEnv>, scopeId: string, permission: Permission): void {
  const decision = decideAccess(c.get('principal'), scopeId, permission);
  if (decision === 'scope_forbidden') {
    throw new ApiError('scope_forbidden', `This API key may not use scope "${scopeId}"`);
  }
  if (decision === 'permission_forbidden') {
    throw new ApiError('permission_forbidden', `This API key lacks the ${permission} permission`);
  }
}
