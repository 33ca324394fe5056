import type { EntryVersion, RememberEntryInput } from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import { parseInput } from '../domain/parse-input.js';
import {
  type DeleteScopeRequest,
  type DeleteScopeResult,
  deleteScopeRequestSchema,
} from '../domain/scope-deletion.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { MemoryStore } from '../ports/memory-store.port.js';

// A scope's whole life beyond its entries (RFC 0015): deleting it, and exporting it in the import
// format. Kept apart from MemoryService's entry operations; the service delegates here.

export const EXPORT_PAGE_SIZE = 500;

export interface ExportRequest {
  /** The revision to export; default the head. */
  revision?: number;
}

/**
 * An export opened at one revision: which memory and revision it reads, how many entries it holds, and
 * the entries page by page (`EXPORT_PAGE_SIZE` a page), all read at that revision whatever is written
 * meanwhile. A scope never written has no memory and no entries.
 */
export interface MemoryExport {
  memory: MemoryRef | undefined;
  total: number;
  pages(): AsyncGenerator<EntryVersion[]>;
}

/** Deletes the scope; `not_found` for a scope never written (nothing is written). */
export async function deleteScope(
  store: MemoryStore,
  scopeId: string,
  request: DeleteScopeRequest,
): Promise<DeleteScopeResult> {
  const { deletedBy } = parseInput(deleteScopeRequestSchema, request);
  const result = await store.deleteScope(scopeId, deletedBy ?? null);
  if (!result) throw new NotFoundError('memory', scopeId);
  return result;
}

/** Opens an export of the scope's active entries at a revision (default: the head). */
export async function openExport(
  store: MemoryStore,
  scopeId: string,
  request: ExportRequest,
): Promise<MemoryExport> {
  const revision = request.revision;
  if (revision !== undefined && (!Number.isSafeInteger(revision) || revision < 1)) {
    throw new ValidationError([{ field: 'revision', rule: 'revision must be an integer >= 1' }]);
  }
  const head = await store.head(scopeId);
  if (revision !== undefined && (!head || revision > head.revision)) {
    throw new NotFoundError('revision', String(revision));
  }
  if (!head) return { memory: undefined, total: 0, pages: async function* () {} };
  const memory = { ...head, revision: revision ?? head.revision };
  const total = await store.activeEntryCount(scopeId, memory.revision);
  return {
    memory,
    total,
    async *pages() {
      let after: { contentHash: string; entryVersionId: string } | undefined;
      for (;;) {
        const page = await store.exportEntries({
          scopeId,
          revision: memory.revision,
          ...(after ? { after } : {}),
          limit: EXPORT_PAGE_SIZE,
        });
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (page.length < EXPORT_PAGE_SIZE || !last) return;
        after = { contentHash: last.contentHash, entryVersionId: last.entryVersionId };
      }
    },
  };
}

/**
 * An exported entry as `remember` (and so `import`) takes it back: text, kind, sources, position,
 * metadata, and the entry fields tags, pinned and occurred_at when set. Ids, revisions, state and timestamps are the store's, and a new scope gives its own.
 */
export function exportedEntry(version: EntryVersion): RememberEntryInput {
  return {
    text: version.text,
    kind: version.kind,
    sources: version.sources.map((source) => ({ ...source })),
    ...(version.position
      ? { position: { sourceId: version.position.sourceId, order: [...version.position.order] } }
      : {}),
    metadata: structuredClone(version.metadata),
    // The entry fields of RFC 0014, only where they say something, so older exports read the same.
    ...(version.tags.length > 0 ? { tags: [...version.tags] } : {}),
    ...(version.pinned ? { pinned: true } : {}),
    ...(version.occurredAt === null ? {} : { occurredAt: version.occurredAt }),
  };
}
