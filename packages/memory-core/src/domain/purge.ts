import { z } from 'zod';
import type { EntryState } from './memory-entry.js';
import type { MemoryRef } from './memory-ref.js';
import { storableText } from './text-rules.js';

/**
 * The operation of the write that created a version or a revision. `purge` writes a revision that
 * holds no entry version, only a tombstone (RFC 0002, "Purge").
 */
export type RevisionOperation = 'remember' | 'revise' | 'forget' | 'reactivate' | 'purge';

/** The operations that write entry versions. */
export type VersionOperation = Exclude<RevisionOperation, 'purge'>;

/** When and by whom an entry was purged. Never its text. */
export interface PurgeInfo {
  /** The revision the purge wrote. */
  revision: number;
  /** ISO 8601 timestamp of the purge. */
  purgedAt: string;
  /** The principal that purged it (an API key id, `local`), or null when the caller did not say. */
  purgedBy: string | null;
}

/** One version a purge erased: its place in the chain and the revisions it was current in, no content. */
export interface PurgedVersion {
  entryVersionId: string;
  version: number;
  /** The revision whose write created the version. */
  revision: number;
  operation: VersionOperation;
  /** The revision from which it was no longer current (the purge's own for the last version). */
  supersededRevision: number;
  state: EntryState;
}

/**
 * What a purge leaves of an entry: the tombstone that ends its version chain (entry id, the
 * tombstone's own version id and number, when, by whom) and the ids and revisions of the erased
 * versions, oldest first. No text, kind, hash, sources, position or metadata survive.
 */
export interface PurgeTombstone extends PurgeInfo {
  entryId: string;
  /** The tombstone's own id: the last link of the entry's version chain. */
  entryVersionId: string;
  /** The last erased version's number plus one. */
  version: number;
  /** The last erased version (the entry's current version when it was purged). */
  previousVersionId: string;
  versions: PurgedVersion[];
}

/** An entry a list at an older revision would have returned, had a later purge not erased it. */
export interface PurgedEntryMarker {
  entryId: string;
  /** The version that was current at the listed revision (erased). */
  entryVersionId: string;
  version: number;
  /** The revision whose write created that version. */
  revision: number;
  state: EntryState;
  purged: true;
  purge: PurgeInfo;
}

/**
 * A change whose version a purge erased (its original operation), or the purge itself (operation
 * `purge`, the tombstone's version id): ids and revisions only.
 */
export interface PurgedChange {
  revision: number;
  operation: RevisionOperation;
  purged: true;
  entryId: string;
  entryVersionId: string;
  version: number;
  purge: PurgeInfo;
}

export const PURGED_BY_MAX_CHARS = 256;

export const purgeRequestSchema = z.strictObject({
  entryId: z.uuid({ error: 'entryId must be a UUID' }),
  /** Who asks: recorded in the tombstone. The server sets it from the API key, never from the body. */
  purgedBy: storableText('purgedBy', 1, PURGED_BY_MAX_CHARS).optional(),
});

export type PurgeRequest = z.input<typeof purgeRequestSchema>;

export interface PurgeResult {
  /** The revision the purge wrote, or the head when the entry was purged already (`unchanged`). */
  memory: MemoryRef;
  tombstone: PurgeTombstone;
  status: 'purged' | 'unchanged';
  /** Set when this is the stored result of an earlier purge with the same idempotency key. */
  replayed?: true;
}

/** The PurgeInfo of a tombstone. */
export function purgeInfoOf(tombstone: PurgeInfo): PurgeInfo {
  return { revision: tombstone.revision, purgedAt: tombstone.purgedAt, purgedBy: tombstone.purgedBy };
}

/** The erased version that was current at `revision`, if the entry had one then. */
export function purgedVersionAt(tombstone: PurgeTombstone, revision: number): PurgedVersion | undefined {
  return tombstone.versions.find(
    (version) => version.revision <= revision && revision < version.supersededRevision,
  );
}
