import { z } from 'zod';
import { storableText } from './text-rules.js';

/** Most tags an entry may carry. */
export const ENTRY_TAGS_MAX = 32;
/** Longest tag, in characters. */
export const ENTRY_TAG_MAX_CHARS = 64;

/**
 * One tag: 1-64 characters of storable text. Tags match case-insensitively because they are folded to
 * lower case (`toLowerCase`) when they are parsed: an entry tagged `Billing` is stored, returned and
 * found as `billing` (RFC 0014, "Entry fields").
 */
export const tagSchema = storableText('tag', 1, ENTRY_TAG_MAX_CHARS)
  .refine((value) => value.trim() !== '', { error: 'tag must contain a non-space character' })
  .transform((value) => value.toLowerCase());

/** An entry's tags: at most 32, folded to lower case, duplicates dropped, in first-seen order. */
export const tagsSchema = z
  .array(tagSchema, { error: 'tags must be an array of strings' })
  .max(ENTRY_TAGS_MAX, { error: `tags must have at most ${ENTRY_TAGS_MAX} items` })
  .transform((tags) => [...new Set(tags)]);

/**
 * An RFC 3339 time with a time zone offset (`2026-06-01T09:30:00Z`, `...+02:00`), normalised to UTC
 * with millisecond precision (`toISOString`): both stores hold and compare the same instant.
 */
export function rfc3339Schema(field: string) {
  return z
    .string({ error: `${field} must be an RFC 3339 time` })
    .pipe(z.iso.datetime({ offset: true, error: `${field} must be an RFC 3339 time with a time zone` }))
    .transform((value) => new Date(value).toISOString());
}

export const occurredAtSchema = rfc3339Schema('occurred_at');
