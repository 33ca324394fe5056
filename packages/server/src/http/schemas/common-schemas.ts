import { z } from '@hono/zod-openapi';
import { METADATA_MAX_BYTES, METADATA_MAX_DEPTH } from '@powercontext/memory-core';
import { API_ERROR_CODES } from '../api-error.js';

/** A scope id as the runtime accepts it: 1-256 characters, no surrounding white space. */
export const scopeIdField = z
  .string({ error: 'scope_id must be a string' })
  .min(1, { error: 'scope_id must be at least 1 character' })
  .max(256, { error: 'scope_id must be at most 256 characters' })
  .openapi({ description: 'The scope whose Memory the request reads or writes.', example: 'project' });

/**
 * `min_revision` of a read: read-your-writes across read replicas (RFC 0005, "More than one server").
 * The answer's `memory.revision` says which revision was read.
 */
export const minRevisionField = z
  .int({ error: 'min_revision must be an integer' })
  .min(1, { error: 'min_revision must be at least 1' })
  .optional()
  .openapi({
    description:
      'Read at least this revision of the scope, e.g. the revision a write of yours answered. A read replica that has not replayed it is waited for (bounded), then the server reads the primary or answers 409 revision_not_visible, as configured; a revision no database has yet is 409 revision_not_visible. Without it a replica answers with the revision it has, which `memory.revision` reports.',
  });

export const uuidField = (name: string) => z.uuid({ error: `${name} must be a UUID` });

export const revisionField = (name: string) =>
  z.int({ error: `${name} must be an integer` }).min(1, { error: `${name} must be at least 1` });

export const artifactRefSchema = z
  .object({
    artifact_id: z.uuid(),
    scope_id: z.string(),
    revision: z.int().min(1),
  })
  .openapi('ArtifactRef', {
    description: 'Exact reference to one revision of a scope’s Memory artifact.',
  });

/**
 * An ArtifactRef or null (a scope never written). A union, not `.nullable()`: the generator turns a
 * nullable reference into `allOf: [ref, {type: [object, null]}]`, which no null satisfies.
 */
export const nullableArtifactRef = (description: string) =>
  z.union([artifactRefSchema, z.null()]).openapi({ description });

export const sourceRefSchema = z
  .strictObject({
    source_id: z
      .string({ error: 'source_id must be a string' })
      .min(1, { error: 'source_id must be at least 1 character' })
      .max(512, { error: 'source_id must be at most 512 characters' }),
    locator: z
      .string({ error: 'locator must be a string' })
      .min(1, { error: 'locator must be at least 1 character' })
      .max(512, { error: 'locator must be at most 512 characters' })
      .optional(),
  })
  .openapi('SourceRef', { description: 'Where an entry came from, e.g. a conversation and a turn.' });

export const positionSchema = z
  .strictObject({
    source_id: z
      .string({ error: 'position.source_id must be a string' })
      .min(1, { error: 'position.source_id must be at least 1 character' })
      .max(512, { error: 'position.source_id must be at most 512 characters' }),
    order: z.union([z.number(), z.array(z.number()).min(1).max(4)], {
      error: 'position.order must be a number or an array of 1-4 numbers',
    }),
  })
  .openapi('EntryPosition', {
    description:
      'The entry’s place in an ordered source (a session and a turn number, a document and a paragraph). Neighbours in the same source lend it their words in the lexical index (RFC 0007). `order` compares element by element.',
  });

// Any JSON object (a request body is JSON already); the runtime checks its size, depth and strings.
// JSON Schema cannot state a serialized size or a nesting depth, so the description states them and
// `x-limits` carries them for tools.
export const metadataField = z
  .record(z.string(), z.unknown(), { error: 'metadata must be a JSON object' })
  .openapi({
    description: `Free JSON object: at most ${METADATA_MAX_BYTES} bytes serialized as JSON (UTF-8), objects and arrays nested at most ${METADATA_MAX_DEPTH} levels deep (the metadata object itself is level 1), no key named "__proto__", no NUL (U+0000) and no lone surrogates in keys or strings.`,
    'x-limits': { max_serialized_bytes: METADATA_MAX_BYTES, max_depth: METADATA_MAX_DEPTH },
  });

export const entryVersionSchema = z
  .object({
    entry_id: z.uuid(),
    entry_version_id: z.uuid(),
    version: z.int().min(1),
    previous_version_id: z.uuid().nullable(),
    kind: z.string(),
    text: z.string(),
    content_hash: z.string(),
    revision: z
      .int()
      .min(1)
      .openapi({ description: 'The Memory revision whose write created this version.' }),
    sources: z.array(sourceRefSchema),
    position: z
      .object({ source_id: z.string(), order: z.array(z.number()) })
      .nullable()
      .openapi({ description: 'Where the entry sits in an ordered source, or null.' }),
    metadata: metadataField,
    tags: z.array(z.string()).openapi({ description: 'Lower-case tags (RFC 0014).' }),
    pinned: z.boolean(),
    occurred_at: z
      .string()
      .nullable()
      .openapi({ description: 'The time the entry is about (UTC ISO 8601), or null.' }),
    state: z.enum(['active', 'inactive']),
    created_at: z.string().openapi({ description: 'ISO 8601 timestamp: when this version was written.' }),
    written_at: z
      .string()
      .openapi({ description: 'When this version was written (ISO 8601): the same instant as created_at.' }),
  })
  .openapi('EntryVersion', { description: 'One immutable version of an entry.' });

export const errorResponseSchema = z
  .object({
    error: z.object({
      code: z.enum(API_ERROR_CODES),
      message: z.string(),
      retryable: z
        .boolean()
        .openapi({ description: 'True when repeating the same request later may succeed.' }),
      details: z
        .object({
          issues: z
            .array(z.object({ field: z.string(), rule: z.string() }))
            .optional()
            .openapi({ description: 'For invalid input: each field (dotted path) and the rule it broke.' }),
        })
        .catchall(z.unknown())
        .optional(),
    }),
  })
  .openapi('ErrorResponse');

const errorContent = { 'application/json': { schema: errorResponseSchema } };

const ERROR_DESCRIPTIONS = {
  400: 'Malformed request: the body is not JSON, or not sent as application/json (malformed_request).',
  401: 'Missing or unknown API key (unauthenticated).',
  403: 'The key may not use this scope (scope_forbidden) or lacks the permission (permission_forbidden).',
  404: 'Unknown entry or revision (not_found).',
  410: 'The entry was purged (entry_purged): every version of it was erased, at every revision; details.purge says when, and by whom for a key with the purge permission. Or the whole scope was deleted (scope_purged): every read and write of it answers this; details.scope holds its tombstone.',
  409: 'The scope moved during the write (revision_conflict, retryable), a read’s min_revision is not visible yet (revision_not_visible, retryable), or vector search without a complete vector index (capability_unavailable).',
  413: 'The body is larger than the configured limit (payload_too_large).',
  422: 'A field breaks a rule (invalid_request); details.issues names each field and rule. On a write: the Idempotency-Key was already used in the scope for another request (idempotency_key_reused).',
  429: 'The key’s rate limit is exhausted (rate_limited); Retry-After says when to retry.',
  500: 'An unexpected failure of the server (internal_error).',
  502: 'The model answered with output that breaks its schema (inference_invalid_output).',
  503: 'A dependency is unavailable or too slow (inference_timeout, inference_unavailable, rerank_failure, rerank_deadline, rerank_saturated, embedding_failed, capability_unavailable for a failed query embedding, database_unavailable, request_timeout: stopped before anything was written), or the server is not ready (not_ready). Retry-After says when to retry.',
  504: 'The request timed out after its write began (write_outcome_unknown): the write may still commit. Repeat it with the same Idempotency-Key to get its result, or read the changes after details.from_revision.',
} as const;

/** The error responses a route documents, each with the shared error body. */
export function errorResponses(...statuses: (keyof typeof ERROR_DESCRIPTIONS)[]) {
  return Object.fromEntries(
    statuses.map((status) => [status, { description: ERROR_DESCRIPTIONS[status], content: errorContent }]),
  );
}
