/**
 * What an API key may do in a scope, in the order they are listed: read, write, explain (a redacted
 * search trace), and purge (erase an entry for good, RFC 0002 "Purge"; `write` does not include it).
 */
export const PERMISSIONS = ['read', 'write', 'explain', 'purge'] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * The caller a request runs as, resolved from its API key (or the local principal when the server
 * runs without keys on localhost). Shared by the HTTP routes, the MCP tools and the CLI.
 */
export interface Principal {
  /** A stable, non-secret id of the key (never the key itself); appears in logs. */
  readonly keyId: string;
  /** Scopes this key may use; '*' = every scope. */
  readonly scopes: '*' | readonly string[];
  readonly permissions: ReadonlySet<Permission>;
}

export type AccessDecision = 'allowed' | 'scope_forbidden' | 'permission_forbidden';

/** Whether `principal` may use `scopeId` with `permission`. */
export function decideAccess(principal: Principal, scopeId: string, permission: Permission): AccessDecision {
  if (principal.scopes !== '*' && !principal.scopes.includes(scopeId)) return 'scope_forbidden';
  if (!principal.permissions.has(permission)) return 'permission_forbidden';
  return 'allowed';
}

/** The principal of a server started without keys: bound to localhost, every scope, every permission. */
export const LOCAL_PRINCIPAL: Principal = {
  keyId: 'local',
  scopes: '*',
  permissions: new Set<Permission>(PERMISSIONS),
};

/**
 * Whose idempotency keys a principal's writes use: its key id, so one key's stored answers are never
 * replayed to, nor refused for, another key that picks the same Idempotency-Key (issue 28). The local
 * principal has none: its keys stay in the scope's shared namespace, with the command line's.
 */
export function idempotencyOwnerOf(principal: Principal): { idempotencyOwner?: string } {
  return principal === LOCAL_PRINCIPAL ? {} : { idempotencyOwner: principal.keyId };
}

/**
 * Whether answers to `principal` in `scopeId` say who purged an entry (`purged_by`, a key id): only
 * to a key that may purge there itself (issue 28). Every other reader sees the tombstone without it.
 */
export function mayReadPurgedBy(principal: Principal, scopeId: string): boolean {
  return decideAccess(principal, scopeId, 'purge') === 'allowed';
}
