import { z } from 'zod';
import { occurredAtSchema, tagsSchema } from './entry-fields.js';
import { type EntryPosition, entryPositionSchema } from './lexical-projection.js';
import { storableText } from './text-rules.js';

export const ENTRY_TEXT_MAX_CHARS = 32_768;
export const REMEMBER_MAX_ENTRIES = 1_000;
/** Serialized (JSON, UTF-8) size limit of an entry's metadata. */
export const METADATA_MAX_BYTES = 16_384;
/** Nesting levels of metadata, the metadata object itself being level 1. */
export const METADATA_MAX_DEPTH = 64;

export type EntryState = 'active' | 'inactive';
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Where an entry came from, e.g. a conversation id and a turn id. */
export interface SourceRef {
  sourceId: string;
  locator?: string;
}

/** One immutable version of an entry. Superseded versions stay readable and citable. */
export interface EntryVersion {
  entryId: string;
  entryVersionId: string;
  version: number;
  previousVersionId: string | null;
  kind: string;
  text: string;
  contentHash: string;
  /** The memory revision whose write created this version. */
  revision: number;
  sources: SourceRef[];
  /** Where the entry sits in an ordered source; its neighbours there give it lexical context. */
  position: EntryPosition | null;
  metadata: Record<string, JsonValue>;
  /** Lower-case labels, at most 32 (RFC 0014, "Entry fields"); `[]` when none were given. */
  tags: string[];
  /** Marked as mattering most; false unless set. */
  pinned: boolean;
  /** The time the entry is about (a meeting's date), UTC ISO 8601; null when not given. */
  occurredAt: string | null;
  state: EntryState;
  /** When this version was written (its revision's time): `written_at` on the wire. */
  createdAt: string;
}

export const sourceRefSchema = z.strictObject({
  sourceId: storableText('sourceId', 1, 512),
  locator: storableText('locator', 1, 512).optional(),
});

export const entryKindSchema = z
  .string({ error: 'kind must be a string' })
  .regex(/^[a-z][a-z0-9_.-]{0,63}$/u, {
    error: 'kind must be 1-64 lowercase letters, digits, "_", "." or "-"',
  });

// Depth and key names are checked first, without recursion, and stop the parse: z.json(),
// JSON.stringify and the checks below recurse once per level (a deeper value overflows the stack), and
// zod's records skip a `__proto__` key, which would vanish without a word.
export const metadataSchema = z
  .custom<Record<string, JsonValue>>()
  .superRefine((value, context) => {
    const problem = metadataShapeProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .pipe(z.record(z.string(), z.json(), { error: 'metadata must be a JSON object' }))
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES, {
    error: `metadata must serialize to at most ${METADATA_MAX_BYTES} bytes`,
  })
  .refine((value) => !JSON.stringify(value).includes('\\u0000'), {
    error: 'metadata must not contain NUL (U+0000)',
  })
  .refine(
    (value) => everyString(value, (text) => (text as string & { isWellFormed(): boolean }).isWellFormed()),
    {
      error: 'metadata must be well-formed Unicode (no lone surrogates)',
    },
  );

/**
 * What is wrong with the shape of metadata: objects and arrays nesting deeper than METADATA_MAX_DEPTH
 * (the metadata object is level 1), or an object key named `__proto__`. Walks without recursion.
 */
function metadataShapeProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, level] = next;
    if (current === null || typeof current !== 'object') continue;
    if (level > METADATA_MAX_DEPTH) return `metadata must nest at most ${METADATA_MAX_DEPTH} levels`;
    if (!Array.isArray(current) && Object.hasOwn(current, '__proto__')) {
      return 'metadata keys must not be __proto__';
    }
    for (const item of Array.isArray(current) ? current : Object.values(current)) {
      pending.push([item, level + 1]);
    }
  }
  return undefined;
}

/** True when every object key and string value inside `value` passes `test`. */
function everyString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.every((item) => everyString(item, test));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => test(key) && everyString(item, test));
  }
  return true;
}

export const entryTextSchema = storableText('text', 1, ENTRY_TEXT_MAX_CHARS).refine(
  (value) => value.trim() !== '',
  {
    error: 'text must contain a non-space character',
  },
);

export const rememberEntrySchema = z.strictObject({
  text: entryTextSchema,
  kind: entryKindSchema.default('note'),
  sources: z.array(sourceRefSchema).max(32, { error: 'sources must have at most 32 items' }).default([]),
  position: entryPositionSchema.optional(),
  metadata: metadataSchema.default({}),
  tags: tagsSchema.default([]),
  pinned: z.boolean({ error: 'pinned must be a boolean' }).default(false),
  occurredAt: occurredAtSchema.optional(),
});

export const rememberRequestSchema = z.strictObject({
  entries: z
    .array(rememberEntrySchema)
    .min(1, { error: 'entries must have at least 1 item' })
    .max(REMEMBER_MAX_ENTRIES, { error: `entries must have at most ${REMEMBER_MAX_ENTRIES} items` }),
});

const entryIdSchema = z.uuid({ error: 'entryId must be a UUID' });

export const reviseRequestSchema = z.strictObject({
  entryId: entryIdSchema,
  text: entryTextSchema,
  kind: entryKindSchema.optional(),
  metadata: metadataSchema.optional(),
  /** Replaces the tags; absent keeps them. */
  tags: tagsSchema.optional(),
  pinned: z.boolean({ error: 'pinned must be a boolean' }).optional(),
  /** Replaces the time the entry is about; null clears it, absent keeps it. */
  occurredAt: occurredAtSchema.nullable().optional(),
});

export const entryTargetSchema = z.strictObject({ entryId: entryIdSchema });

export type RememberEntryInput = z.input<typeof rememberEntrySchema>;
export type RememberRequest = z.input<typeof rememberRequestSchema>;
export type ReviseRequest = z.input<typeof reviseRequestSchema>;
export type EntryTarget = z.input<typeof entryTargetSchema>;
