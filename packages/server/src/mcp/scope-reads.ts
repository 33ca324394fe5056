import {
  type SearchMemoryRequest,
  type SearchOptions,
  type SearchResult,
  ValidationError,
} from '@powercontext/memory-core';
import type { PrepareContextRequest, PreparedContext, ReadOptions, Runtime } from '@powercontext/runtime';
import { decideAccess, type Permission, type Principal } from '../auth/principal.js';
import { type ScopeTargetsBody, scopeTargetIssues } from '../http/schemas/scope-targets.js';
import { accessDeniedError, type ToolError } from './tool-error.js';

/**
 * What search_memory and prepare_context read: one scope (`scope_id`) or several (`scope_ids`, issue 29),
 * with the read options each takes (`min_revision`, or `min_revisions` per scope).
 */
export interface ScopeReads {
  scopeIds: readonly string[];
  /** Whether the call named several scopes (scope_ids): its answer then lists each scope's revision. */
  several: boolean;
  search(
    request: SearchMemoryRequest,
    options: SearchOptions & Omit<ReadOptions, 'minRevision'>,
  ): Promise<SearchResult>;
  prepareContext(
    request: PrepareContextRequest,
    options: SearchOptions & Omit<ReadOptions, 'minRevision'>,
  ): Promise<PreparedContext>;
}

/** The call's scope reads; throws ValidationError (invalid_request) when the scope arguments break a rule. */
export function scopeReadsOf(runtime: Pick<Runtime, 'memory'>, input: ScopeTargetsBody): ScopeReads {
  const issues = scopeTargetIssues(input);
  if (issues.length > 0) {
    throw new ValidationError(issues.map(({ path, message }) => ({ field: path.join('.'), rule: message })));
  }
  if (input.scope_ids) {
    const scopeIds = input.scope_ids;
    const minRevisions = input.min_revisions === undefined ? {} : { minRevisions: input.min_revisions };
    return {
      scopeIds,
      several: true,
      search: (request, options) => runtime.memory.search(scopeIds, request, { ...options, ...minRevisions }),
      prepareContext: (request, options) =>
        runtime.memory.prepareContext(scopeIds, request, { ...options, ...minRevisions }),
    };
  }
  const memory = runtime.memory.forScope(input.scope_id!);
  const minRevision = input.min_revision === undefined ? {} : { minRevision: input.min_revision };
  return {
    scopeIds: [input.scope_id!],
    several: false,
    search: (request, options) => memory.search(request, { ...options, ...minRevision }),
    prepareContext: (request, options) => memory.prepareContext(request, { ...options, ...minRevision }),
  };
}

/** The error for the first scope the principal may not read with `permission`, in the order asked. */
export function scopesDenied(
  principal: Principal,
  scopeIds: readonly string[],
  permission: Permission,
): ToolError | undefined {
  for (const scopeId of scopeIds) {
    const decision = decideAccess(principal, scopeId, permission);
    if (decision !== 'allowed') return accessDeniedError(decision, scopeId, permission);
  }
  return undefined;
}
