import { decodeCursor, encodeCursor, entriesCursorSchema } from '../domain/cursor.js';
import { effectiveFilter } from '../domain/entry-filter.js';
import type { EntryVersion } from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import { parseInput } from '../domain/parse-input.js';
import type { PurgedEntryMarker } from '../domain/purge.js';
import { type ListEntriesRequest, listEntriesRequestSchema } from '../domain/read-requests.js';
import { ValidationError } from '../errors/validation-error.js';
import type { ListEntriesQuery, MemoryStore } from '../ports/memory-store.port.js';
import { mergeByKey } from './merge-by-key.js';

export interface EntryPage {
  memory: MemoryRef | undefined;
  entries: EntryVersion[];
  /**
   * Present when the page's range of entry ids held entries that a later purge erased: the marker of
   * each, in place of its version (ids and revisions only). Never at the head, where a purged entry
   * does not exist any more; only in the `entry_id` order of a list without a filter or a text (a
   * marker has no fields to filter or order by, and no text).
   */
  purged?: PurgedEntryMarker[];
  /** Entries at the revision that match the state and the filter, on every page (RFC 0014). */
  total?: number;
  nextCursor?: string;
}

/**
 * One page of a scope's entries at a revision (RFC 0002, "Reads"; RFC 0014): of a state, kept by a
 * filter and a text, in an order, with the total they keep. `memoryAt` resolves the revision to read.
 */
export async function listEntries(
  store: MemoryStore,
  scopeId: string,
  request: ListEntriesRequest,
  memoryAt: (revision: number | undefined) => Promise<MemoryRef | undefined>,
): Promise<EntryPage> {
  const input = parseInput(listEntriesRequestSchema, request);
  const position = input.cursor ? decodeCursor(entriesCursorSchema, input.cursor) : undefined;
  const order = input.order;
  if (position && (position.order ?? 'entry_id') !== order) {
    throw new ValidationError([{ field: 'cursor', rule: 'cursor belongs to a list in another order' }]);
  }
  const memory = await memoryAt(position?.revision ?? input.revision);
  if (!memory) return { memory, entries: [], total: 0 };
  const filter = effectiveFilter(input.filter);
  const base: ListEntriesQuery = {
    scopeId,
    revision: memory.revision,
    state: input.state,
    limit: input.limit + 1,
    order,
    ...(filter ? { filter } : {}),
    ...(input.text === undefined ? {} : { text: input.text }),
  };
  const query: ListEntriesQuery = {
    ...base,
    ...(position && order === 'entry_id' ? { afterEntryId: position.after } : {}),
    ...(position && order !== 'entry_id' && position.at !== undefined
      ? { after: { revision: position.at, entryId: position.after } }
      : {}),
  };
  const markersShown = order === 'entry_id' && !filter && input.text === undefined;
  const [versions, markers, total] = await Promise.all([
    store.listEntries(query),
    markersShown ? store.listPurgedEntries(query) : Promise.resolve([]),
    store.countEntries(base),
  ]);
  // One keyset (entry id) over both: a purged entry keeps its place in the pages.
  const rows = mergeByKey<EntryVersion | PurgedEntryMarker>(versions, markers, (row) => [row.entryId]);
  const page = rows.slice(0, input.limit);
  const entries = page.filter((row): row is EntryVersion => !('purged' in row));
  const purged = page.filter((row): row is PurgedEntryMarker => 'purged' in row);
  const last = page.at(-1);
  const next =
    rows.length > input.limit && last
      ? encodeCursor({
          revision: memory.revision,
          after: last.entryId,
          ...(order === 'entry_id' ? {} : { order, at: last.revision }),
        })
      : undefined;
  return {
    memory,
    entries,
    ...(purged.length > 0 ? { purged } : {}),
    total,
    ...(next ? { nextCursor: next } : {}),
  };
}
