import type { ReadGate, Runtime, WriteOptions } from '@powercontext/runtime';
import type { Context } from 'hono';
import { decideAccess, idempotencyOwnerOf, mayReadPurgedBy, type Permission } from '../../auth/principal.js';
import { ApiError } from '../api-error.js';
import type { AppEnv, AppOptions } from '../app-env.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../schemas/idempotency-schemas.js';
import type { PurgeView } from '../wire.js';

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
 * The read option that runs a search or a context preparation in one of the process's search lanes
 * (SearchLanes), taken in turn with the other keys; the request's signal (timeout, client gone) stops
 * the wait for a lane. The runtime takes the lane only once the read's `min_revision` is visible, so a
 * read waiting for a replica holds only its key's in-flight slot, never a lane (issue 28).
 */
export function searchLane(c: Context<AppEnv>, options: AppOptions): { gate?: ReadGate } {
  const admission = options.admission;
  if (!admission) return {};
  const principal = c.get('principal');
  const signal = c.get('signal');
  return { gate: (work) => admission.inSearchLane(principal, signal, work) };
}

/**
 * How a write route runs its write: with the request's Idempotency-Key (kept per API key), stopped by
 * the request's signal until its transaction begins, and reporting that moment to the request
 * timeout, which then answers `write_outcome_unknown` instead of `request_timeout`.
 */
export function writeOptions(c: Context<AppEnv>, idempotencyKey: string | undefined): WriteOptions {
  const watch = c.get('writeWatch');
  return {
    ...(idempotencyKey === undefined ? {} : { idempotencyKey, ...idempotencyOwnerOf(c.get('principal')) }),
    signal: c.get('signal'),
    onTransactionBegin: ({ scopeId, headRevision }) => {
      if (watch) watch.started ??= { scopeId, headRevision, idempotencyKey };
    },
  };
}

/** Marks the answer of a write that was replayed from its idempotency record. */
export function markReplayed(c: Context<AppEnv>, result: { replayed?: true }): void {
  if (result.replayed) c.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
}

/**
 * Checks that the caller's key may use the scope with the permission. A key that may not use a scope
 * gets the same answer whether the scope exists or not, so it cannot probe other tenants' scopes.
 */
export function authorize(c: Context<AppEnv>, scopeId: string, permission: Permission): void {
  c.set('scopeId', scopeId);
  const decision = decideAccess(c.get('principal'), scopeId, permission);
  if (decision === 'scope_forbidden') {
    throw new ApiError('scope_forbidden', `This API key may not use scope "${scopeId}"`);
  }
  if (decision === 'permission_forbidden') {
    throw new ApiError('permission_forbidden', `This API key lacks the ${permission} permission`);
  }
}

/**
 * Checks that the caller's key may use every scope of a read of several with the permission, in the
 * order asked: the first scope it may not use is the one the 403 names.
 */
export function authorizeScopes(
  c: Context<AppEnv>,
  scopeIds: readonly string[],
  permission: Permission,
): void {
  for (const scopeId of scopeIds) {
    const decision = decideAccess(c.get('principal'), scopeId, permission);
    if (decision === 'scope_forbidden') {
      throw new ApiError('scope_forbidden', `This API key may not use scope "${scopeId}"`);
    }
    if (decision === 'permission_forbidden') {
      throw new ApiError('permission_forbidden', `This API key lacks the ${permission} permission`);
    }
  }
}

/** The read options of a read of several scopes: its `min_revisions`, when the body has them. */
export function scopesReadOptions(body: { min_revisions?: Record<string, number> | undefined }): {
  minRevisions?: Record<string, number>;
} {
  return body.min_revisions === undefined ? {} : { minRevisions: body.min_revisions };
}

/** The read options of a read route: its `min_revision`, when the body has one. */
export function readOptions(body: { min_revision?: number | undefined }): { minRevision?: number } {
  return body.min_revision === undefined ? {} : { minRevision: body.min_revision };
}

/** What the caller may see of a purge in the scope: who purged only with the purge permission there. */
export function purgeView(c: Context<AppEnv>, scopeId: string): PurgeView {
  return { purgedBy: mayReadPurgedBy(c.get('principal'), scopeId) };
}
