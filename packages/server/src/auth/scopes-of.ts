import type { Runtime } from '@powercontext/runtime';
import { PERMISSIONS, type Permission, type Principal } from './principal.js';

/** What a key may use, as `GET /v1/scopes` and the MCP tool `list_scopes` answer it. */
export interface ScopesView {
  /** True when the key may use every scope (then `scopes` lists those that hold memory). */
  any_scope: boolean;
  /** The scopes the key names, or, for a key of every scope, the scopes that have been written. */
  scopes: string[];
  permissions: Permission[];
}

/**
 * The scopes a caller may use and what it may do there. A key limited to named scopes sees exactly
 * those (written or not), and nothing about any other scope; a key of every scope sees the scopes
 * that hold memory, since "every scope" cannot be listed.
 */
export async function scopesOf(principal: Principal, runtime: Pick<Runtime, 'memory'>): Promise<ScopesView> {
  const permissions = PERMISSIONS.filter((permission) => principal.permissions.has(permission));
  if (principal.scopes === '*') {
    return { any_scope: true, scopes: [...(await runtime.memory.scopes())].sort(), permissions };
  }
  return { any_scope: false, scopes: [...principal.scopes].sort(), permissions };
}
