import {
  type MemoryService,
  type SearchMemoryRequest,
  type SearchOptions,
  type SearchResult,
  ValidationError,
} from '@powercontext/memory-core';
import { type PrepareContextRequest, type PreparedContext, prepareContext } from './prepare-context.js';
import type { ReadOptions } from './scoped-memory.js';

/**
 * Options of a read of several scopes: as `ReadOptions`, with one `minRevision` per scope instead of
 * one for the read (revisions are per scope). A scope the map leaves out has no minimum.
 */
export interface ScopesReadOptions extends Omit<ReadOptions, 'minRevision'> {
  minRevisions?: Readonly<Record<string, number>>;
}

/** One scope of a read of several, with the revision of it the read must see. */
export interface ScopeReadTarget {
  scopeId: string;
  minRevision?: number;
}

/** Runs one read of several scopes with its options; the composition root decides where it goes. */
export type ScopesReadRunner = <T>(
  targets: readonly ScopeReadTarget[],
  options: Omit<ReadOptions, 'minRevision'> | undefined,
  work: () => Promise<T>,
) => Promise<T>;

/**
 * Search and context preparation over several scopes at once (issue 29, "Several scopes"): each scope is
 * read at its own head, which is at least its `minRevisions` entry; the scopes' hits are fused by RRF
 * and each hit's citation names its scope. The caller checks that its principal may read every scope.
 */
export interface ScopesMemory {
  search(
    scopeIds: readonly string[],
    request: SearchMemoryRequest,
    options?: SearchOptions & ScopesReadOptions,
  ): Promise<SearchResult>;
  prepareContext(
    scopeIds: readonly string[],
    request: PrepareContextRequest,
    options?: SearchOptions & ScopesReadOptions,
  ): Promise<PreparedContext>;
}

export function scopesMemory(service: MemoryService, read: ScopesReadRunner): ScopesMemory {
  const run = async <T>(
    scopeIds: readonly string[],
    options: (SearchOptions & ScopesReadOptions) | undefined,
    work: (search: SearchOptions | undefined) => Promise<T>,
  ): Promise<T> => {
    const { minRevisions, onServed, gate, ...search } = options ?? {};
    const targets = readTargets(scopeIds, minRevisions);
    return read(targets, { ...(onServed ? { onServed } : {}), ...(gate ? { gate } : {}) }, () =>
      work(options ? search : undefined),
    );
  };
  return {
    search: (scopeIds, request, options) =>
      run(scopeIds, options, (search) => service.searchScopes(scopeIds, request, search)),
    prepareContext: (scopeIds, request, options) =>
      run(scopeIds, options, (search) => prepareContext(service, scopeIds, request, search)),
  };
}

/** Each scope with its minimum revision; a minimum for a scope the read does not name is refused. */
function readTargets(
  scopeIds: readonly string[],
  minRevisions: Readonly<Record<string, number>> | undefined,
): ScopeReadTarget[] {
  const issues = Object.entries(minRevisions ?? {}).flatMap(([scopeId, revision]) => {
    const field = `minRevisions.${scopeId}`;
    if (!scopeIds.includes(scopeId)) return [{ field, rule: 'must name one of the scopes searched' }];
    if (!Number.isSafeInteger(revision) || revision < 1)
      return [{ field, rule: 'must be an integer of at least 1' }];
    return [];
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return scopeIds.map((scopeId) => {
    const minRevision = minRevisions?.[scopeId];
    return minRevision === undefined ? { scopeId } : { scopeId, minRevision };
  });
}
