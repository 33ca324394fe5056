import { z } from '@hono/zod-openapi';
import {
  ENTRY_TEXT_MAX_CHARS,
  LIST_LIMIT_MAX,
  LIST_TEXT_MAX_CHARS,
  REMEMBER_MAX_ENTRIES,
} from '@powercontext/memory-core';
import {
  artifactRefSchema,
  entryVersionSchema,
  metadataField,
  minRevisionField,
  nullableArtifactRef,
  positionSchema,
  revisionField,
  scopeIdField,
  sourceRefSchema,
  uuidField,
} from './common-schemas.js';
import {
  entryFilterWireSchema,
  listOrderField,
  occurredAtField,
  pinnedField,
  tagsField,
} from './steering-schemas.js';

const textField = z
  .string({ error: 'text must be a string' })
  .min(1, { error: 'text must be at least 1 character' })
  .max(ENTRY_TEXT_MAX_CHARS, { error: `text must be at most ${ENTRY_TEXT_MAX_CHARS} characters` });

// The runtime checks the rule (with its own message); the document states it as a pattern.
const kindField = z.string({ error: 'kind must be a string' }).openapi({
  description: '1-64 lowercase letters, digits, "_", "." or "-", starting with a letter; default "note".',
  pattern: '^[a-z][a-z0-9_.-]{0,63}$',
  example: 'note',
});

const listLimitField = z
  .int({ error: 'limit must be an integer' })
  .min(1, { error: 'limit must be at least 1' })
  .max(LIST_LIMIT_MAX, { error: `limit must be at most ${LIST_LIMIT_MAX}` })
  .optional()
  .openapi({ description: `Page size, 1-${LIST_LIMIT_MAX}; default 50.` });

// A list's text filter (RFC 0014, "List"); the runtime also refuses NUL and lone surrogates.
const listTextField = z
  .string({ error: 'text must be a string' })
  .min(1, { error: 'text must be at least 1 character' })
  .max(LIST_TEXT_MAX_CHARS, { error: `text must be at most ${LIST_TEXT_MAX_CHARS} characters` })
  .openapi({
    description: `Only entries whose text contains this (1-${LIST_TEXT_MAX_CHARS} characters), ignoring case: both are folded to lower case one character at a time, as PostgreSQL's lower() does. Matched literally: % _ and \\ are plain characters. Counted by total.`,
    example: 'invoice',
  });

const cursorField = z
  .string({ error: 'cursor must be a string' })
  .max(1024, { error: 'cursor is too long' })
  .optional()
  .openapi({ description: 'next_cursor of the previous page.' });

const writeStatus = z.enum(['created', 'duplicate', 'unchanged']).openapi({
  description:
    'created: a new version was written; duplicate: an active entry with the same kind and text exists; unchanged: the entry already had this content or state.',
});

export const rememberRequestSchema = z
  .strictObject({
    scope_id: scopeIdField,
    entries: z
      .array(
        z.strictObject({
          text: textField,
          kind: kindField.optional(),
          sources: z.array(sourceRefSchema, { error: 'sources must be a list' }).optional(),
          position: positionSchema.optional(),
          metadata: metadataField.optional(),
          tags: tagsField.optional(),
          pinned: pinnedField.optional(),
          occurred_at: occurredAtField.optional(),
        }),
        { error: 'entries must be a list' },
      )
      .min(1, { error: 'entries must have at least 1 item' })
      .max(REMEMBER_MAX_ENTRIES, { error: `entries must have at most ${REMEMBER_MAX_ENTRIES} items` }),
  })
  .openapi('RememberRequest');

export const rememberResponseSchema = z
  .object({
    memory: artifactRefSchema,
    entries: z.array(z.object({ entry_id: z.uuid(), entry_version_id: z.uuid(), status: writeStatus })),
  })
  .openapi('RememberResponse');

export const reviseRequestSchema = z
  .strictObject({
    scope_id: scopeIdField,
    entry_id: uuidField('entry_id'),
    text: textField,
    kind: kindField.optional(),
    metadata: metadataField.optional(),
    tags: tagsField.optional().openapi({ description: 'Replaces the tags; absent keeps them.' }),
    pinned: pinnedField.optional().openapi({ description: 'Absent keeps the current value.' }),
    occurred_at: occurredAtField
      .nullable()
      .optional()
      .openapi({ description: 'RFC 3339; null clears it, absent keeps it.' }),
  })
  .openapi('ReviseRequest');

export const entryTargetRequestSchema = z
  .strictObject({ scope_id: scopeIdField, entry_id: uuidField('entry_id') })
  .openapi('EntryTargetRequest');

export const entryWriteResponseSchema = z
  .object({
    memory: artifactRefSchema,
    entry_id: z.uuid(),
    entry_version_id: z.uuid().openapi({ description: 'The entry’s current version after the write.' }),
    status: writeStatus,
  })
  .openapi('EntryWriteResponse');

export const listEntriesRequestSchema = z
  .strictObject({
    scope_id: scopeIdField,
    state: z
      .enum(['active', 'inactive', 'all'], { error: 'state must be one of active, inactive, all' })
      .optional(),
    revision: revisionField('revision').optional(),
    cursor: cursorField,
    limit: listLimitField,
    min_revision: minRevisionField,
    filter: entryFilterWireSchema.optional(),
    order: listOrderField.optional(),
    text: listTextField.optional(),
  })
  .openapi('ListEntriesRequest');

export const purgeInfoSchema = z
  .object({
    revision: z.int().min(1).openapi({ description: 'The revision the purge wrote.' }),
    purged_at: z.string().openapi({ description: 'ISO 8601 timestamp.' }),
    purged_by: z.string().nullable().optional().openapi({
      description:
        'The id of the API key that purged the entry (`local` without keys; null when the purge named nobody). Present only for a key with the `purge` permission in the scope (every caller of a keyless server); absent for every other reader.',
    }),
  })
  .openapi('PurgeInfo', { description: 'When and by whom an entry was purged. Never its text.' });

export const purgedEntryMarkerSchema = z
  .object({
    entry_id: z.uuid(),
    entry_version_id: z.uuid().openapi({ description: 'The erased version current at the listed revision.' }),
    version: z.int().min(1),
    revision: z.int().min(1).openapi({ description: 'The revision whose write created that version.' }),
    state: z.enum(['active', 'inactive']),
    purged: z.literal(true),
    purge: purgeInfoSchema,
  })
  .openapi('PurgedEntry', {
    description: 'An entry the listed revision held, erased since by a purge: ids and revisions only.',
  });

export const listEntriesResponseSchema = z
  .object({
    memory: nullableArtifactRef('The revision the page was read at; null when the scope was never written.'),
    entries: z.array(entryVersionSchema),
    purged: z.array(purgedEntryMarkerSchema).optional().openapi({
      description:
        'Present when entries of this page’s range of entry ids were erased by a later purge (never at the head). Together with `entries` they make the page, in entry id order. Only in the entry_id order of a list without a filter or a text.',
    }),
    total: z.int().min(0).openapi({
      description: 'How many entries at the revision match the state, the filter and the text (every page).',
    }),
    next_cursor: z.string().optional(),
  })
  .openapi('ListEntriesResponse');

export const getEntryRequestSchema = z
  .strictObject({
    scope_id: scopeIdField,
    entry_id: uuidField('entry_id'),
    revision: revisionField('revision').optional(),
    min_revision: minRevisionField,
  })
  .openapi('GetEntryRequest');

export const getEntryResponseSchema = z
  .object({ memory: artifactRefSchema, entry: entryVersionSchema })
  .openapi('GetEntryResponse');

const entryChangeSchema = z
  .object({
    revision: z.int().min(1),
    operation: z.enum(['remember', 'revise', 'forget', 'reactivate']),
    entry: entryVersionSchema,
  })
  .openapi('EntryChange', { description: 'An entry version a write created.' });

const purgedChangeSchema = z
  .object({
    revision: z.int().min(1),
    operation: z.enum(['remember', 'revise', 'forget', 'reactivate', 'purge']),
    purged: z.literal(true),
    entry_id: z.uuid(),
    entry_version_id: z
      .uuid()
      .openapi({ description: 'The erased version, or the tombstone for operation purge.' }),
    version: z.int().min(1),
    purge: purgeInfoSchema,
  })
  .openapi('PurgedChange', {
    description: 'A change whose version a later purge erased, or the purge itself: ids and revisions only.',
  });

export const changesRequestSchema = z
  .strictObject({
    scope_id: scopeIdField,
    from_revision: z
      .int({ error: 'from_revision must be an integer' })
      .min(0, { error: 'from_revision must be at least 0' })
      .optional()
      .openapi({
        description:
          'Changes after this revision; default 0 (everything). Past the latest revision: 404 not_found; above to_revision: 422.',
      }),
    to_revision: revisionField('to_revision').optional().openapi({
      description:
        'Changes up to and including this revision; default the latest. Past the latest revision: 404 not_found.',
    }),
    cursor: cursorField,
    limit: listLimitField,
    min_revision: minRevisionField,
  })
  .openapi('ChangesRequest');

export const changesResponseSchema = z
  .object({
    memory: nullableArtifactRef('The scope’s latest revision; null when the scope was never written.'),
    from_revision: z.int(),
    to_revision: z.int(),
    changes: z.array(z.union([entryChangeSchema, purgedChangeSchema])).openapi({
      description:
        'Oldest first. A version erased by a purge, and the purge itself, come as a PurgedChange (`purged: true`, no text).',
    }),
    next_cursor: z.string().optional(),
  })
  .openapi('ChangesResponse');

export const purgeResponseSchema = z
  .object({
    memory: artifactRefSchema,
    status: z.enum(['purged', 'unchanged']).openapi({
      description: 'purged: the entry was erased in a new revision; unchanged: it had been purged already.',
    }),
    tombstone: z
      .object({
        entry_id: z.uuid(),
        entry_version_id: z
          .uuid()
          .openapi({ description: 'The tombstone’s own id, the end of the version chain.' }),
        version: z.int().min(2),
        previous_version_id: z.uuid(),
        revision: z.int().min(1).openapi({ description: 'The revision the purge wrote.' }),
        purged_at: z.string().openapi({ description: 'ISO 8601 timestamp.' }),
        purged_by: z.string().nullable(),
        versions: z.array(
          z.object({
            entry_version_id: z.uuid(),
            version: z.int().min(1),
            revision: z.int().min(1),
            operation: z.enum(['remember', 'revise', 'forget', 'reactivate']),
            superseded_revision: z.int().min(1),
            state: z.enum(['active', 'inactive']),
          }),
        ),
      })
      .openapi('PurgeTombstone', {
        description:
          'What is left of a purged entry: ids, version numbers and revisions of its erased versions.',
      }),
  })
  .openapi('PurgeResponse');
