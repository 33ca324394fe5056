import { z } from 'zod';
import { PURGED_BY_MAX_CHARS } from './purge.js';
import { storableText } from './text-rules.js';

/**
 * What a deleted scope leaves (RFC 0015, "Delete a scope"): its memory's artifact id, the head revision
 * it had, how many entries were current then, when and by whom it was deleted. No text, no ids of
 * entries. The scope's name stays taken: reads and writes of it answer `scope_purged`.
 */
export interface ScopeTombstone {
  scopeId: string;
  artifactId: string;
  /** The head revision the scope had when it was deleted. */
  revision: number;
  /** Entries (active or forgotten) current at that head. */
  entries: number;
  /** ISO 8601 timestamp of the deletion. */
  deletedAt: string;
  /** The principal that deleted it (an API key id, `local`), or null when the caller did not say. */
  deletedBy: string | null;
}

export const deleteScopeRequestSchema = z.strictObject({
  /** Who asks: recorded in the tombstone. The server sets it from the API key, never from a body. */
  deletedBy: storableText('deletedBy', 1, PURGED_BY_MAX_CHARS).optional(),
});

export type DeleteScopeRequest = z.input<typeof deleteScopeRequestSchema>;

export interface DeleteScopeResult {
  tombstone: ScopeTombstone;
  /** `unchanged` when the scope was deleted already (the same tombstone answers). */
  status: 'deleted' | 'unchanged';
}
