import type { EntryFilterInput, JsonValue } from '@powercontext/memory-core';
import type { WireEntryFilter } from './schemas/steering-schemas.js';

/** A filter from the wire (snake_case) to the runtime (camelCase); the runtime validates it again. */
export function fromWireFilter(filter: WireEntryFilter): EntryFilterInput {
  const pairs: [keyof EntryFilterInput, unknown][] = [
    ['kinds', filter.kinds],
    ['tagsAll', filter.tags_all],
    ['tagsAny', filter.tags_any],
    ['sourceIds', filter.source_ids],
    ['metadata', filter.metadata as Record<string, JsonValue> | undefined],
    ['pinned', filter.pinned],
    ['occurredAfter', filter.occurred_after],
    ['occurredBefore', filter.occurred_before],
    ['writtenAfter', filter.written_after],
    ['writtenBefore', filter.written_before],
  ];
  return Object.fromEntries(pairs.filter(([, value]) => value !== undefined)) as EntryFilterInput;
}

/** `{ filter }` for a runtime request when the wire request has one. */
export function wireFilterPart(filter: WireEntryFilter | undefined): { filter?: EntryFilterInput } {
  return filter === undefined ? {} : { filter: fromWireFilter(filter) };
}
