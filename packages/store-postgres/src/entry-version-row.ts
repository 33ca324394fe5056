import type { EntryVersion, JsonValue, SourceRef } from '@powercontext/memory-core';
import { sql } from 'kysely';

/** The columns that make an EntryVersion, selected as `v.*`-style raw SQL. */
export const ENTRY_VERSION_COLUMNS = sql.raw(
  'v.entry_version_id, v.entry_id, v.version, v.previous_version_id, v.kind, v.text, v.content_hash, v.revision, v.sources, v.position_source, v.position_order, v.metadata, to_jsonb(v.tags) AS tags, v.pinned, v.occurred_at, v.state, v.created_at, v.operation',
);

export interface EntryVersionRow {
  entry_version_id: string;
  entry_id: string;
  version: number;
  previous_version_id: string | null;
  kind: string;
  text: string;
  content_hash: string;
  revision: number;
  sources: unknown;
  position_source: string | null;
  position_order: number[] | string | null;
  metadata: unknown;
  tags: unknown;
  pinned: boolean;
  occurred_at: Date | string | null;
  state: 'active' | 'inactive';
  created_at: Date | string;
  operation: string;
}

export function toEntryVersion(row: EntryVersionRow): EntryVersion {
  return {
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    version: row.version,
    previousVersionId: row.previous_version_id,
    kind: row.kind,
    text: row.text,
    contentHash: row.content_hash,
    revision: row.revision,
    sources: parseJson(row.sources) as SourceRef[],
    position:
      row.position_source === null || row.position_order === null
        ? null
        : { sourceId: row.position_source, order: parseOrder(row.position_order) },
    metadata: parseJson(row.metadata) as Record<string, JsonValue>,
    tags: parseJson(row.tags) as string[],
    pinned: row.pinned,
    occurredAt: row.occurred_at === null ? null : isoTime(row.occurred_at),
    state: row.state,
    createdAt: isoTime(row.created_at),
  };
}

function isoTime(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A float8[] as the driver returns it: parsed already (pg), or in PostgreSQL's text form. */
export function parseOrder(value: number[] | string): number[] {
  if (Array.isArray(value)) return value.map(Number);
  return value
    .replace(/^\{|\}$/g, '')
    .split(',')
    .map(Number);
}

function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** `v` is live at `revision`: created at or before it and not yet superseded then. */
export function liveAt(scopeId: string, revision: number) {
  return sql`v.scope_id = ${scopeId} AND ${visibleAt(revision)}`;
}

/** The visibility rule alone, for joins that reach `v` by primary key and need no scope filter. */
export function visibleAt(revision: number) {
  return sql`v.revision <= ${revision} AND (v.superseded_revision IS NULL OR v.superseded_revision > ${revision})`;
}
