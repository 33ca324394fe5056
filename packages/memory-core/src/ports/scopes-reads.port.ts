import type { MemoryRef } from '../domain/memory-ref.js';

// The shapes of a read of several scopes. `ScopesReads`, the reads themselves, is part of the store
// port (memory-store.port.ts); these stay apart so that a channel can name them without the store.

/** One scope of a read of several scopes, at the revision the read reads it at (its own head). */
export type ScopeAtRevision = Pick<MemoryRef, 'scopeId' | 'revision'>;

/** One scope's share of `entryVersionsOfScopes`: the scope and the ids to read from it. */
export interface ScopeVersionsRead {
  scopeId: string;
  entryVersionIds: readonly string[];
}
