import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';

/** Longest idempotency key, in characters (all of them visible ASCII). */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** How long a write's idempotency record is kept by default: 24 hours. */
export const IDEMPOTENCY_RETENTION_DEFAULT_SECONDS = 86_400;

/**
 * Visible ASCII, U+0021 `!` to U+007E `~`: no spaces, no control characters, nothing beyond ASCII.
 * Without flags, so the OpenAPI document states the same pattern.
 */
const VISIBLE_ASCII = /^[!-~]+$/;

/** The rule every transport applies to an idempotency key, with `field` named in the messages. */
export function idempotencyKeyRule(field: string) {
  return z
    .string({ error: `${field} must be a string` })
    .min(1, { error: `${field} must be at least 1 character`, abort: true })
    .max(IDEMPOTENCY_KEY_MAX_CHARS, {
      error: `${field} must be at most ${IDEMPOTENCY_KEY_MAX_CHARS} characters`,
    })
    .regex(VISIBLE_ASCII, {
      error: `${field} must be visible ASCII characters only (! to ~, no spaces)`,
    });
}

export const idempotencyKeySchema = idempotencyKeyRule('idempotencyKey');

/** Longest idempotency owner (an API key id, say), in characters. */
export const IDEMPOTENCY_OWNER_MAX_CHARS = 255;

/** Who an idempotency key belongs to: any 1-255 characters (the server passes the API key's id). */
export const idempotencyOwnerSchema = z
  .string({ error: 'idempotencyOwner must be a string' })
  .min(1, { error: 'idempotencyOwner must be at least 1 character', abort: true })
  .max(IDEMPOTENCY_OWNER_MAX_CHARS, {
    error: `idempotencyOwner must be at most ${IDEMPOTENCY_OWNER_MAX_CHARS} characters`,
  });

/**
 * The key a write's record is stored under. Without an owner, the caller's key itself (the scope's
 * shared namespace, as before owners existed). With one, the SHA-256 of the owner, a space, then the
 * key: a caller's key never holds a space, so no owner's stored key equals another owner's, nor a key
 * without an owner, and the owner's name is not kept in the table.
 */
export function storedIdempotencyKey(key: string, owner: string | undefined): string {
  if (owner === undefined) return key;
  return `owner:${createHash('sha256').update(owner, 'utf8').digest('hex')} ${key}`;
}

/**
 * The digest of a write request as the service understood it: the operation and its parsed input
 * (defaults filled in), as canonical JSON (object keys sorted), hashed with SHA-256. Two requests with
 * the same digest ask for the same write, whatever the key order or the defaults they spelled out.
 */
export function requestDigest(operation: string, input: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson({ operation, input })).digest('hex')}`;
}
