import { z } from 'zod';
import { entryFilterSchema } from './entry-filter.js';
import { storableText } from './text-rules.js';

export const LIST_LIMIT_MAX = 200;
/** The most characters of a list's `text` (RFC 0014, "List"). */
export const LIST_TEXT_MAX_CHARS = 200;

const limitSchema = z
  .int({ error: 'limit must be an integer' })
  .min(1, { error: 'limit must be at least 1' })
  .max(LIST_LIMIT_MAX, { error: `limit must be at most ${LIST_LIMIT_MAX}` })
  .default(50);
const revisionSchema = z
  .int({ error: 'revision must be an integer' })
  .min(1, { error: 'revision must be at least 1' });
const cursorSchema = z
  .string({ error: 'cursor must be a string' })
  .max(1024, { error: 'cursor is too long' });

export const listEntriesRequestSchema = z.strictObject({
  state: z
    .enum(['active', 'inactive', 'all'], { error: 'state must be one of active, inactive, all' })
    .default('active'),
  revision: revisionSchema.optional(),
  cursor: cursorSchema.optional(),
  limit: limitSchema,
  filter: entryFilterSchema.optional(),
  order: z
    .enum(['entry_id', 'newest', 'oldest'], { error: 'order must be one of entry_id, newest, oldest' })
    .default('entry_id'),
  /** Only entries whose text contains this, case-insensitively (`containsFolded`). List only. */
  text: storableText('text', 1, LIST_TEXT_MAX_CHARS).optional(),
});

export const getEntryRequestSchema = z.strictObject({
  entryId: z.uuid({ error: 'entryId must be a UUID' }),
  revision: revisionSchema.optional(),
});

export const listChangesRequestSchema = z.strictObject({
  fromRevision: z
    .int({ error: 'fromRevision must be an integer' })
    .min(0, { error: 'fromRevision must be at least 0' })
    .default(0),
  toRevision: revisionSchema.optional(),
  cursor: cursorSchema.optional(),
  limit: limitSchema,
});

export type ListEntriesRequest = z.input<typeof listEntriesRequestSchema>;
export type GetEntryRequest = z.input<typeof getEntryRequestSchema>;
export type ListChangesRequest = z.input<typeof listChangesRequestSchema>;
