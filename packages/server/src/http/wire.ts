import type {
  EntryVersion,
  JsonValue,
  MemoryHit,
  MemoryRef,
  PurgedChange,
  PurgedEntryMarker,
  PurgeInfo,
  PurgeTombstone,
  RememberEntryInput,
  RevisionChange,
  ScopeRead,
  ScopeTombstone,
} from '@powercontext/memory-core';
import { isWireChannel } from './wire-channels.js';

/** Runtime values (camelCase) to the JSON the API sends (snake_case). Field order is the schema's. */

export function toArtifactRef(memory: MemoryRef) {
  return { artifact_id: memory.artifactId, scope_id: memory.scopeId, revision: memory.revision };
}

export function toOptionalArtifactRef(memory: MemoryRef | undefined) {
  return memory ? toArtifactRef(memory) : null;
}

/** Each scope a read of several scopes read, with the revision it read (null: never written). */
export function toScopesRead(scopes: readonly ScopeRead[]) {
  return scopes.map((scope) => ({ scope_id: scope.scopeId, memory: toOptionalArtifactRef(scope.memory) }));
}

export function toEntryVersion(entry: EntryVersion) {
  return {
    entry_id: entry.entryId,
    entry_version_id: entry.entryVersionId,
    version: entry.version,
    previous_version_id: entry.previousVersionId,
    kind: entry.kind,
    text: entry.text,
    content_hash: entry.contentHash,
    revision: entry.revision,
    sources: entry.sources.map((source) => ({
      source_id: source.sourceId,
      ...(source.locator === undefined ? {} : { locator: source.locator }),
    })),
    position: entry.position
      ? { source_id: entry.position.sourceId, order: [...entry.position.order] }
      : null,
    metadata: entry.metadata,
    tags: [...entry.tags],
    pinned: entry.pinned,
    occurred_at: entry.occurredAt,
    state: entry.state,
    created_at: entry.createdAt,
    written_at: entry.createdAt,
  };
}

/**
 * What an answer may say about a purge: `purgedBy` shows who purged (the key id), which only a caller
 * that may purge in the scope sees; everyone else gets the tombstone without it (issue 28).
 */
export interface PurgeView {
  purgedBy: boolean;
}

/** The view of a caller that may purge in the scope: the purge answer itself, the command line. */
export const PURGER_VIEW: PurgeView = { purgedBy: true };

/** A change: the version it wrote, or, when a purge erased it (or for the purge itself), ids only. */
export function toChange(change: RevisionChange | PurgedChange, view: PurgeView) {
  if (change.purged) {
    return {
      revision: change.revision,
      operation: change.operation,
      purged: true as const,
      entry_id: change.entryId,
      entry_version_id: change.entryVersionId,
      version: change.version,
      purge: toPurgeInfo(change.purge, view),
    };
  }
  return { revision: change.revision, operation: change.operation, entry: toEntryVersion(change.version) };
}

export function toPurgeInfo(purge: PurgeInfo, view: PurgeView) {
  return {
    revision: purge.revision,
    purged_at: purge.purgedAt,
    ...(view.purgedBy ? { purged_by: purge.purgedBy } : {}),
  };
}

/** A deleted scope's tombstone (RFC 0015); who deleted it only for a key with the purge permission. */
export function toScopeTombstone(tombstone: ScopeTombstone, view: PurgeView) {
  return {
    scope_id: tombstone.scopeId,
    artifact_id: tombstone.artifactId,
    revision: tombstone.revision,
    entries: tombstone.entries,
    deleted_at: tombstone.deletedAt,
    ...(view.purgedBy ? { deleted_by: tombstone.deletedBy } : {}),
  };
}

/**
 * One line of an export (RFC 0015): the entry in the wire shape of `POST /v1/memory/remember`'s entries,
 * which is what `memory import` reads. Fields in a fixed order, so equal entries give equal lines.
 */
export function toExportLine(version: EntryVersion): string {
  return JSON.stringify({
    text: version.text,
    kind: version.kind,
    sources: version.sources.map((source) => ({
      source_id: source.sourceId,
      ...(source.locator === undefined ? {} : { locator: source.locator }),
    })),
    ...(version.position
      ? { position: { source_id: version.position.sourceId, order: [...version.position.order] } }
      : {}),
    metadata: version.metadata,
    // The entry fields of RFC 0014, only where they say something, so older exports read the same.
    ...(version.tags.length > 0 ? { tags: [...version.tags] } : {}),
    ...(version.pinned ? { pinned: true } : {}),
    ...(version.occurredAt === null ? {} : { occurred_at: version.occurredAt }),
  });
}

export function toPurgedEntryMarker(marker: PurgedEntryMarker, view: PurgeView) {
  return {
    entry_id: marker.entryId,
    entry_version_id: marker.entryVersionId,
    version: marker.version,
    revision: marker.revision,
    state: marker.state,
    purged: true as const,
    purge: toPurgeInfo(marker.purge, view),
  };
}

/** The tombstone a purge answers with: only a caller that may purge gets it, so it says who purged. */
export function toPurgeTombstone(tombstone: PurgeTombstone) {
  return {
    entry_id: tombstone.entryId,
    entry_version_id: tombstone.entryVersionId,
    version: tombstone.version,
    previous_version_id: tombstone.previousVersionId,
    revision: tombstone.revision,
    purged_at: tombstone.purgedAt,
    purged_by: tombstone.purgedBy,
    versions: tombstone.versions.map((version) => ({
      entry_version_id: version.entryVersionId,
      version: version.version,
      revision: version.revision,
      operation: version.operation,
      superseded_revision: version.supersededRevision,
      state: version.state,
    })),
  };
}

/** The `purged` markers of a list page, present only when the page has any. */
export function toPurgedMarkers(markers: readonly PurgedEntryMarker[] | undefined, view: PurgeView) {
  return markers && markers.length > 0
    ? { purged: markers.map((marker) => toPurgedEntryMarker(marker, view)) }
    : {};
}

/** A search hit on the wire: its scope and citation come from the hit itself, never from the request. */
export function toSearchHit(hit: MemoryHit) {
  return {
    scope_id: hit.citation.scopeId,
    citation: {
      memory_ref: {
        artifact_id: hit.citation.artifactId,
        scope_id: hit.citation.scopeId,
        revision: hit.citation.revision,
      },
      entry_id: hit.citation.entryId,
      entry_version_id: hit.citation.entryVersionId,
    },
    text: hit.text,
    score: hit.score,
    matched_by: hit.matchedBy.filter(isWireChannel),
    kind: hit.entry.kind,
    tags: [...hit.entry.tags],
    pinned: hit.entry.pinned,
    occurred_at: hit.entry.occurredAt,
    metadata: hit.entry.metadata,
    sources: hit.entry.sources.map((source) => ({
      source_id: source.sourceId,
      ...(source.locator === undefined ? {} : { locator: source.locator }),
    })),
    revision: hit.entry.revision,
    written_at: hit.entry.createdAt,
  };
}

/** One entry of a remember request as the HTTP route and the MCP tool receive it (snake_case). */
export interface WireRememberEntry {
  text: string;
  kind?: string | undefined;
  sources?: { source_id: string; locator?: string | undefined }[] | undefined;
  position?: { source_id: string; order: number | number[] } | undefined;
  metadata?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
  pinned?: boolean | undefined;
  occurred_at?: string | undefined;
}

/** A remember entry from the wire to the runtime (camelCase); the runtime validates it again. */
export function fromWireRememberEntry(entry: WireRememberEntry): RememberEntryInput {
  return {
    text: entry.text,
    ...(entry.kind === undefined ? {} : { kind: entry.kind }),
    ...(entry.sources === undefined
      ? {}
      : {
          sources: entry.sources.map((source) => ({
            sourceId: source.source_id,
            ...(source.locator === undefined ? {} : { locator: source.locator }),
          })),
        }),
    ...(entry.position === undefined
      ? {}
      : { position: { sourceId: entry.position.source_id, order: entry.position.order } }),
    // A parsed JSON body holds JSON values only.
    ...(entry.metadata === undefined ? {} : { metadata: entry.metadata as Record<string, JsonValue> }),
    ...(entry.tags === undefined ? {} : { tags: entry.tags }),
    ...(entry.pinned === undefined ? {} : { pinned: entry.pinned }),
    ...(entry.occurred_at === undefined ? {} : { occurredAt: entry.occurred_at }),
  };
}
