import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { PERMISSIONS, type Permission, type Principal } from './principal.js';

/** How many memory requests one key may have running at once, unless its record says otherwise. */
export const DEFAULT_MAX_IN_FLIGHT = 4;

/** How many requests a key may make per window; a token bucket refilled evenly over the window. */
export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

/** One configured key: its hash (never the key), what it may do, its rate limit and its concurrency. */
export interface ApiKeyRecord extends Principal {
  readonly sha256: Buffer;
  readonly rateLimit: RateLimit;
  /** Memory requests (and MCP tool calls) it may have running at once; more are answered 429. */
  readonly maxInFlight: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 600, windowSeconds: 60 };

const permissionSchema = z.enum(PERMISSIONS, {
  error: 'permissions must be read, write, explain or purge',
});

const keySchema = z.strictObject({
  id: z
    .string({ error: 'id must be a string' })
    .regex(/^[A-Za-z0-9._-]{1,64}$/u, { error: 'id must be 1-64 letters, digits, ".", "_" or "-"' }),
  sha256: z
    .string({ error: 'sha256 must be a string' })
    .regex(/^[0-9a-fA-F]{64}$/u, { error: 'sha256 must be the 64 hex digits of the SHA-256 of the key' }),
  scopes: z.union([
    z.literal('*'),
    z
      .array(z.string().min(1, { error: 'a scope must not be empty' }), {
        error: 'scopes must be "*" or a list',
      })
      .min(1, { error: 'scopes must list at least one scope' }),
  ]),
  permissions: z.array(permissionSchema).min(1, { error: 'permissions must list at least one permission' }),
  rate_limit: z
    .strictObject({
      requests: z.int().min(1, { error: 'rate_limit.requests must be at least 1' }),
      window_seconds: z.number().positive({ error: 'rate_limit.window_seconds must be positive' }),
    })
    .optional(),
  max_in_flight: z
    .int({ error: 'max_in_flight must be an integer' })
    .min(1, { error: 'max_in_flight must be at least 1' })
    .max(1_000, { error: 'max_in_flight must be at most 1000' })
    .optional(),
});

export const apiKeysDocumentSchema = z.strictObject({
  keys: z.array(keySchema, { error: 'keys must be a list' }),
});

export type ApiKeysDocument = z.input<typeof apiKeysDocumentSchema>;

/** Thrown for a keys document that breaks a rule; `where` names the field. */
export class ApiKeysError extends Error {
  override name = 'ApiKeysError';
}

/** The SHA-256 of a key, as stored in the keys document (hex). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Parses a keys document (JSON text). `origin` names the file or variable in errors; a key without
 * `max_in_flight` gets `defaultMaxInFlight`.
 */
export function parseApiKeys(
  text: string,
  origin: string,
  defaultMaxInFlight = DEFAULT_MAX_IN_FLIGHT,
): ApiKeyRecord[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiKeysError(`${origin}: must be a JSON document like {"keys": [...]}`);
  }
  const parsed = apiKeysDocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join('.') : '(document)';
    throw new ApiKeysError(`${origin}: ${field}: ${issue.message}`);
  }
  return parsed.data.keys.map((key) => ({
    keyId: key.id,
    sha256: Buffer.from(key.sha256.toLowerCase(), 'hex'),
    scopes: key.scopes === '*' ? '*' : [...new Set(key.scopes)],
    permissions: new Set<Permission>(key.permissions),
    rateLimit: key.rate_limit
      ? { requests: key.rate_limit.requests, windowSeconds: key.rate_limit.window_seconds }
      : DEFAULT_RATE_LIMIT,
    maxInFlight: key.max_in_flight ?? defaultMaxInFlight,
  }));
}

/** Rejects two keys with one id or one hash (the second would be unreachable or ambiguous). */
export function assertDistinctKeys(keys: readonly ApiKeyRecord[]): void {
  const ids = new Set<string>();
  const hashes = new Set<string>();
  for (const key of keys) {
    const hash = key.sha256.toString('hex');
    if (ids.has(key.keyId)) throw new ApiKeysError(`API key id "${key.keyId}" is configured twice`);
    if (hashes.has(hash)) throw new ApiKeysError(`API key "${key.keyId}" has the same hash as another key`);
    ids.add(key.keyId);
    hashes.add(hash);
  }
}

/**
 * Finds the key whose hash matches the presented key. Every configured hash is compared in constant
 * time, and the loop never stops early, so the time taken does not tell which key (if any) matched.
 */
export function findApiKey(keys: readonly ApiKeyRecord[], presented: string): ApiKeyRecord | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: ApiKeyRecord | undefined;
  for (const key of keys) {
    if (timingSafeEqual(digest, key.sha256) && found === undefined) found = key;
  }
  return found;
}
