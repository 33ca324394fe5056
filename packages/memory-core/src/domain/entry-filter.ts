import { z } from 'zod';
import { rfc3339Schema, tagSchema } from './entry-fields.js';
import { type EntryVersion, entryKindSchema, type JsonValue, metadataSchema } from './memory-entry.js';
import { storableText } from './text-rules.js';

/** Most values in one of a filter's lists. */
export const FILTER_LIST_MAX = 32;

function listOf<Item extends z.ZodType>(field: string, item: Item) {
  return z
    .array(item, { error: `${field} must be an array` })
    .min(1, { error: `${field} must have at least 1 item` })
    .max(FILTER_LIST_MAX, { error: `${field} must have at most ${FILTER_LIST_MAX} items` });
}

/**
 * What a search, a prepare-context call and a list keep (RFC 0014, "Filters"): every condition given
 * must hold (AND); within `kinds`, `tags_any` and `source_ids` one value is enough (OR), within
 * `tags_all` every tag is needed. Times are exclusive bounds. An entry without `occurred_at` never
 * passes an `occurred_*` bound. Unknown keys are refused.
 */
export const entryFilterSchema = z.strictObject(
  {
    kinds: listOf('kinds', entryKindSchema).optional(),
    tagsAll: listOf('tags_all', tagSchema).optional(),
    tagsAny: listOf('tags_any', tagSchema).optional(),
    sourceIds: listOf('source_ids', storableText('source id', 1, 512)).optional(),
    metadata: metadataSchema.optional(),
    pinned: z.boolean({ error: 'pinned must be a boolean' }).optional(),
    occurredAfter: rfc3339Schema('occurred_after').optional(),
    occurredBefore: rfc3339Schema('occurred_before').optional(),
    writtenAfter: rfc3339Schema('written_after').optional(),
    writtenBefore: rfc3339Schema('written_before').optional(),
  },
  { error: 'filter must be an object' },
);

export type EntryFilterInput = z.input<typeof entryFilterSchema>;
export type EntryFilter = z.output<typeof entryFilterSchema>;

/** True when the filter keeps every entry (absent, or no condition given). */
export function isEmptyFilter(filter: EntryFilter | undefined): filter is undefined {
  return filter === undefined || Object.values(filter).every((value) => value === undefined);
}

/** A filter with its conditions only (undefined when it has none): what stores and channels receive. */
export function effectiveFilter(filter: EntryFilter | undefined): EntryFilter | undefined {
  if (isEmptyFilter(filter)) return undefined;
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as EntryFilter;
}

/**
 * Whether an entry version passes the filter: the in-memory form of the predicate the SQL stores apply
 * (`metadata` with the semantics of PostgreSQL's jsonb `@>` per top-level key).
 */
export function matchesFilter(version: EntryVersion, filter: EntryFilter | undefined): boolean {
  if (filter === undefined) return true;
  const { kinds, tagsAll, tagsAny, sourceIds, metadata, pinned } = filter;
  if (kinds && !kinds.includes(version.kind)) return false;
  if (tagsAll && !tagsAll.every((tag) => version.tags.includes(tag))) return false;
  if (tagsAny && !tagsAny.some((tag) => version.tags.includes(tag))) return false;
  if (sourceIds && !version.sources.some((source) => sourceIds.includes(source.sourceId))) return false;
  if (metadata && !jsonContains(version.metadata, metadata)) return false;
  if (pinned !== undefined && version.pinned !== pinned) return false;
  if (!within(version.occurredAt, filter.occurredAfter, filter.occurredBefore)) return false;
  return within(version.createdAt, filter.writtenAfter, filter.writtenBefore);
}

function within(time: string | null, after: string | undefined, before: string | undefined): boolean {
  if (after === undefined && before === undefined) return true;
  if (time === null) return false;
  const at = Date.parse(time);
  return (after === undefined || at > Date.parse(after)) && (before === undefined || at < Date.parse(before));
}

/**
 * PostgreSQL's jsonb containment (`container @> contained`): an object contains an object whose every
 * key it holds with a containing value; an array contains an array whose every element some element of
 * it contains; scalars contain an equal scalar.
 */
export function jsonContains(container: JsonValue, contained: JsonValue): boolean {
  if (Array.isArray(contained)) {
    return (
      Array.isArray(container) &&
      contained.every((wanted) => container.some((item) => jsonContains(item, wanted)))
    );
  }
  if (contained !== null && typeof contained === 'object') {
    if (container === null || typeof container !== 'object' || Array.isArray(container)) return false;
    return Object.entries(contained).every(
      ([key, wanted]) => Object.hasOwn(container, key) && jsonContains(container[key]!, wanted),
    );
  }
  return container === contained;
}
