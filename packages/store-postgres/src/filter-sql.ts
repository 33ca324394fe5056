import type { EntryFilter } from '@powercontext/memory-core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database.js';
import { liveAt } from './entry-version-row.js';

/**
 * The filter of RFC 0014 as a predicate on the entry version row `v` (the same rules as the core's
 * `matchesFilter`): kinds and tags by array operators, sources by their ids, metadata by jsonb
 * containment (`@>`), times as exclusive bounds. `true` when the filter is undefined.
 */
export function filterCondition(filter: EntryFilter | undefined): RawBuilder<unknown> {
  if (filter === undefined) return sql`true`;
  const parts: RawBuilder<unknown>[] = [];
  if (filter.kinds) parts.push(sql`v.kind = ANY(${textArray(filter.kinds)})`);
  if (filter.tagsAll) parts.push(sql`v.tags @> ${textArray(filter.tagsAll)}`);
  if (filter.tagsAny) parts.push(sql`v.tags && ${textArray(filter.tagsAny)}`);
  if (filter.sourceIds) {
    parts.push(sql`EXISTS (SELECT 1 FROM jsonb_array_elements(v.sources) s
      WHERE s ->> 'sourceId' = ANY(${textArray(filter.sourceIds)}))`);
  }
  if (filter.metadata) parts.push(sql`v.metadata @> ${JSON.stringify(filter.metadata)}::jsonb`);
  if (filter.pinned !== undefined) parts.push(sql`v.pinned = ${String(filter.pinned)}::boolean`);
  if (filter.occurredAfter) parts.push(sql`v.occurred_at > ${filter.occurredAfter}::timestamptz`);
  if (filter.occurredBefore) parts.push(sql`v.occurred_at < ${filter.occurredBefore}::timestamptz`);
  if (filter.writtenAfter) parts.push(sql`v.created_at > ${filter.writtenAfter}::timestamptz`);
  if (filter.writtenBefore) parts.push(sql`v.created_at < ${filter.writtenBefore}::timestamptz`);
  return parts.length === 0 ? sql`true` : sql`(${sql.join(parts, sql` AND `)})`;
}

/**
 * A text[] from a parameter that is one string (prepared statements take strings and numbers only):
 * the values as a JSON array.
 */
function textArray(values: readonly string[]) {
  return sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/**
 * Whether the version `id` (an expression) of the scope passes the filter: a probe of its row by
 * primary key, inside a channel's statement before its top-k. `true` when the filter is undefined.
 */
export function keptBy(scopeId: string, filter: EntryFilter | undefined, id: RawBuilder<unknown>) {
  if (filter === undefined) return sql`true`;
  return sql`EXISTS (SELECT 1 FROM pc_entry_versions v
    WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ${id} AND ${filterCondition(filter)})`;
}

/**
 * The versions live and active at a revision that a filter keeps, for the indexes held in memory, which
 * apply it as a predicate on entry version ids. Versions are immutable, so a set answers for its
 * (scope, revision, filter) for good; the last few are kept, which also lets the lexical and vector
 * channels of one search share one read.
 */
export class FilteredVersions {
  readonly #db: Kysely<Database>;
  readonly #held = new Map<string, Promise<ReadonlySet<string>>>();
  readonly #capacity: number;

  constructor(db: Kysely<Database>, capacity = 32) {
    this.#db = db;
    this.#capacity = capacity;
  }

  kept(scopeId: string, revision: number, filter: EntryFilter): Promise<ReadonlySet<string>> {
    const key = `${scopeId}\u0000${revision}\u0000${JSON.stringify(filter)}`;
    const held = this.#held.get(key);
    if (held !== undefined) {
      this.#held.delete(key);
      this.#held.set(key, held);
      return held;
    }
    const read = this.#read(scopeId, revision, filter);
    read.catch(() => this.#held.delete(key));
    this.#held.set(key, read);
    if (this.#held.size > this.#capacity) this.#held.delete(this.#held.keys().next().value!);
    return read;
  }

  /** Drops every set of the scope: a purge rewrote its past. */
  forgetScope(scopeId: string): void {
    for (const key of this.#held.keys()) if (key.startsWith(`${scopeId}\u0000`)) this.#held.delete(key);
  }

  async #read(scopeId: string, revision: number, filter: EntryFilter): Promise<ReadonlySet<string>> {
    const { rows } = await sql<{ entry_version_id: string }>`
      SELECT v.entry_version_id FROM pc_entry_versions v
      WHERE ${liveAt(scopeId, revision)} AND v.state = 'active' AND ${filterCondition(filter)}`.execute(
      this.#db,
    );
    return new Set(rows.map((row) => row.entry_version_id));
  }
}
