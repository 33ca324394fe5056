import { createHash } from 'node:crypto';

/** sha256 of the entry's kind and exact text; two entries with the same hash are duplicates. */
export function contentHash(kind: string, text: string): string {
  return createHash('sha256').update(kind).update('\u0000').update(text).digest('hex');
}
