import { z } from '@hono/zod-openapi';
import { ENTRY_TAG_MAX_CHARS, ENTRY_TAGS_MAX, FILTER_LIST_MAX } from '@powercontext/memory-core';
import { metadataField } from './common-schemas.js';

// RFC 0014: what an entry says about itself (tags, pinned, occurred_at) and the one filter of search,
// prepare context and list. The runtime checks every rule again with the same words.

const rfc3339 = (field: string) =>
  z
    .string({ error: `${field} must be an RFC 3339 time` })
    .pipe(z.iso.datetime({ offset: true, error: `${field} must be an RFC 3339 time with a time zone` }))
    .openapi({ description: `RFC 3339 time with a time zone offset, e.g. 2026-06-03T10:00:00+02:00.` });

const tagField = z
  .string({ error: 'tag must be a string' })
  .min(1, { error: 'tag must be at least 1 character' })
  .max(ENTRY_TAG_MAX_CHARS, { error: `tag must be at most ${ENTRY_TAG_MAX_CHARS} characters` });

export const tagsField = z
  .array(tagField, { error: 'tags must be an array of strings' })
  .max(ENTRY_TAGS_MAX, { error: `tags must have at most ${ENTRY_TAGS_MAX} items` })
  .openapi({
    description: `0-${ENTRY_TAGS_MAX} labels of 1-${ENTRY_TAG_MAX_CHARS} characters, folded to lower case (matched case-insensitively), duplicates dropped.`,
  });

export const pinnedField = z
  .boolean({ error: 'pinned must be a boolean' })
  .openapi({ description: 'Marks the entry as mattering most; default false.' });

export const occurredAtField = rfc3339('occurred_at').openapi({
  description:
    'RFC 3339 time the entry is about (e.g. a meeting’s date), distinct from when it was written; returned in UTC.',
});

const listOf = <Item extends z.ZodType>(field: string, item: Item) =>
  z
    .array(item, { error: `${field} must be an array` })
    .min(1, { error: `${field} must have at least 1 item` })
    .max(FILTER_LIST_MAX, { error: `${field} must have at most ${FILTER_LIST_MAX} items` });

export const entryFilterWireSchema = z
  .strictObject(
    {
      kinds: listOf('kinds', z.string({ error: 'kind must be a string' }))
        .optional()
        .openapi({
          description: 'Entries of any of these kinds.',
        }),
      tags_all: listOf('tags_all', tagField)
        .optional()
        .openapi({ description: 'Entries with every one of these tags.' }),
      tags_any: listOf('tags_any', tagField)
        .optional()
        .openapi({ description: 'Entries with at least one of these tags.' }),
      source_ids: listOf(
        'source_ids',
        z
          .string({ error: 'source id must be a string' })
          .min(1, { error: 'source id must be at least 1 character' })
          .max(512, {
            error: 'source id must be at most 512 characters',
          }),
      )
        .optional()
        .openapi({ description: 'Entries with a source of one of these ids.' }),
      metadata: metadataField.optional().openapi({
        description:
          'Entries whose metadata holds each of these top-level keys with a containing value (JSON containment, as PostgreSQL’s jsonb @>): equal scalars; an object within an object; every element of an array within the entry’s array.',
      }),
      pinned: z.boolean({ error: 'pinned must be a boolean' }).optional().openapi({
        description: 'Only pinned (true) or only unpinned (false) entries.',
      }),
      occurred_after: rfc3339('occurred_after').optional().openapi({
        description: 'occurred_at strictly after this time; entries without occurred_at never match.',
      }),
      occurred_before: rfc3339('occurred_before').optional().openapi({
        description: 'occurred_at strictly before this time; entries without occurred_at never match.',
      }),
      written_after: rfc3339('written_after').optional().openapi({
        description: 'Versions written (written_at) strictly after this time.',
      }),
      written_before: rfc3339('written_before').optional().openapi({
        description: 'Versions written (written_at) strictly before this time.',
      }),
    },
    { error: 'filter must be an object' },
  )
  .openapi('EntryFilter', {
    description:
      'Which entries to keep (RFC 0014): every condition given must hold. Applied inside each search channel before its top-k, so a filtered search still returns `limit` hits when that many matching entries match the query.',
  });

export type WireEntryFilter = z.infer<typeof entryFilterWireSchema>;

export const listOrderField = z
  .enum(['entry_id', 'newest', 'oldest'], { error: 'order must be one of entry_id, newest, oldest' })
  .openapi({
    description:
      'entry_id (default): by entry id. newest / oldest: by the revision that wrote each entry’s listed version, then entry id. A cursor keeps its order.',
  });
