import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';

/**
 * Per-scope search statistics (migration 0004, RFC 0002 "Storage for search"), kept in the write
 * transaction so a search reads one row instead of counting the scope:
 * - `pc_scope_statistics`: BM25's document count and total length (the visible lexical projections),
 *   and the active entries, at `revision`;
 * - `pc_scope_vector_statistics`: per embedding profile, the active entries at `revision` without a
 *   vector of the profile (the vector index is complete when it is 0).
 * A row describes exactly one revision, the head when it was written. A read at any other revision
 * (a pinned older one, or a scope whose row is missing) counts, so a row can only be used where it is
 * exact. Every change runs under the scope's head row lock: writes, re-embedding, projection rebuilds.
 */

/** What one write changed, for the incremental update. */
export interface WrittenRevision {
  scopeId: string;
  expectedRevision: number;
  revision: number;
  /** Versions this write superseded (their projections were superseded with them). */
  supersededVersionIds: readonly string[];
  /** Versions whose current projection this write replaced (re-projected neighbours). */
  reprojectedVersionIds: readonly string[];
  /** The new versions that are active. */
  activeVersionIds: readonly string[];
  /** Embedding profiles to keep completeness for: the store's prepared ones and this write's. */
  profileIds: readonly string[];
}

const uuids = (ids: readonly string[]) => sql`${[...new Set(ids)]}::uuid[]`;

/**
 * Moves the scope's statistics from `expectedRevision` to `revision`: incrementally from the row of
 * `expectedRevision`, or by counting the head when there is none (first write, or after migration).
 */
export async function advanceStatistics(db: Kysely<Database>, write: WrittenRevision): Promise<void> {
  const { scopeId, expectedRevision, revision } = write;
  const superseded = uuids(write.supersededVersionIds);
  const replaced = uuids([...write.supersededVersionIds, ...write.reprojectedVersionIds]);
  await sql`
    WITH previous AS MATERIALIZED (
      SELECT s.projections, s.projection_length, s.active_entries FROM pc_scope_statistics s
      WHERE s.scope_id = ${scopeId} AND s.revision = ${expectedRevision}
    ), added AS MATERIALIZED (
      SELECT count(*) AS n, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
      WHERE p.scope_id = ${scopeId} AND p.revision = ${revision} AND p.superseded_revision IS NULL
    ), removed AS MATERIALIZED (
      SELECT count(*) AS n, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
      WHERE p.scope_id = ${scopeId} AND p.entry_version_id = ANY(${replaced}) AND p.superseded_revision = ${revision}
    ), deactivated AS MATERIALIZED (
      SELECT count(*) AS n FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ANY(${superseded}) AND v.state = 'active'
    ), incremental AS (
      SELECT pr.projections + a.n - r.n AS projections, pr.projection_length + a.len - r.len AS projection_length,
        pr.active_entries + ${write.activeVersionIds.length}::bigint - d.n AS active_entries
      FROM previous pr, added a, removed r, deactivated d
    ), counted AS (
      SELECT p.n AS projections, p.len AS projection_length, v.n AS active_entries
      FROM (SELECT count(*) AS n, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
            WHERE p.scope_id = ${scopeId} AND p.superseded_revision IS NULL) p,
        (SELECT count(*) AS n FROM pc_entry_versions v
         WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active') v
      WHERE NOT EXISTS (SELECT 1 FROM previous)
    )
    INSERT INTO pc_scope_statistics AS s (scope_id, revision, projections, projection_length, active_entries)
    SELECT ${scopeId}, ${revision}, projections, projection_length, active_entries
    FROM (SELECT * FROM incremental UNION ALL SELECT * FROM counted) AS next
    ON CONFLICT (scope_id) DO UPDATE SET revision = excluded.revision, projections = excluded.projections,
      projection_length = excluded.projection_length, active_entries = excluded.active_entries`.execute(db);

  const active = uuids(write.activeVersionIds);
  // Rows at the previous revision move on by what this write added and removed without a vector.
  await sql`
    UPDATE pc_scope_vector_statistics s SET revision = ${revision}, missing = s.missing
      + (SELECT count(*) FROM unnest(${active}) AS n(id)
         WHERE NOT EXISTS (SELECT 1 FROM pc_embeddings e
           WHERE e.scope_id = ${scopeId} AND e.entry_version_id = n.id AND e.profile_id = s.profile_id))
      - (SELECT count(*) FROM pc_entry_versions v
         WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ANY(${superseded}) AND v.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM pc_embeddings e
             WHERE e.scope_id = ${scopeId} AND e.entry_version_id = v.entry_version_id AND e.profile_id = s.profile_id))
    WHERE s.scope_id = ${scopeId} AND s.revision = ${expectedRevision}`.execute(db);
  await sql`DELETE FROM pc_scope_vector_statistics s WHERE s.scope_id = ${scopeId} AND s.revision <> ${revision}`.execute(
    db,
  );
  if (write.profileIds.length > 0) await countMissingVectors(db, scopeId, revision, write.profileIds);
}

/** Counts the head's missing vectors for the profiles that have no row yet. */
async function countMissingVectors(
  db: Kysely<Database>,
  scopeId: string,
  revision: number,
  profileIds: readonly string[],
) {
  await sql`
    INSERT INTO pc_scope_vector_statistics (scope_id, profile_id, revision, missing)
    SELECT ${scopeId}, p.id, ${revision}, (
      SELECT count(*) FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'
        AND NOT EXISTS (SELECT 1 FROM pc_embeddings e
          WHERE e.scope_id = ${scopeId} AND e.entry_version_id = v.entry_version_id AND e.profile_id = p.id))
    FROM unnest(${[...new Set(profileIds)]}::text[]) AS p(id)
    WHERE NOT EXISTS (
      SELECT 1 FROM pc_scope_vector_statistics s WHERE s.scope_id = ${scopeId} AND s.profile_id = p.id)
    ON CONFLICT (scope_id, profile_id) DO NOTHING`.execute(db);
}

/** After re-embedding at the head (under its lock): the new vectors of head versions are no longer missing. */
export async function subtractEmbedded(
  db: Kysely<Database>,
  scopeId: string,
  profileId: string,
  headRevision: number,
  insertedVersionIds: readonly string[],
): Promise<void> {
  if (insertedVersionIds.length === 0) return;
  await sql`
    UPDATE pc_scope_vector_statistics s SET missing = s.missing - (
      SELECT count(*) FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ANY(${uuids(insertedVersionIds)})
        AND v.superseded_revision IS NULL AND v.state = 'active')
    WHERE s.scope_id = ${scopeId} AND s.profile_id = ${profileId} AND s.revision = ${headRevision}`.execute(
    db,
  );
}

/** After a projection rebuild at the head (under its lock): BM25's statistics counted again. */
export async function recountLexicalStatistics(db: Kysely<Database>, scopeId: string): Promise<void> {
  await sql`
    UPDATE pc_scope_statistics s SET projections = c.n, projection_length = c.len
    FROM (SELECT count(*) AS n, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
          WHERE p.scope_id = ${scopeId} AND p.superseded_revision IS NULL) c
    WHERE s.scope_id = ${scopeId}
      AND s.revision = (SELECT m.head_revision FROM pc_memories m WHERE m.scope_id = ${scopeId})`.execute(db);
}

/** What a purge changed at the head, for the incremental update (RFC 0002, "Purge"). */
export interface PurgedRevision {
  scopeId: string;
  expectedRevision: number;
  revision: number;
  /** Change of BM25's document count and total length (current projections after minus before). */
  projections: number;
  projectionLength: number;
  /** The erased entry was active at the head: one active entry fewer. */
  activeEntryErased: boolean;
  /** Profiles the erased entry's current version had a vector of (it was not missing there). */
  embeddedProfiles: readonly string[];
  /** Embedding profiles to keep completeness for (the store's prepared ones). */
  profileIds: readonly string[];
}

/**
 * Moves the scope's statistics from `expectedRevision` to the purge's `revision` by what the purge
 * changed; without a row for `expectedRevision`, the head is counted (as on a first write).
 */
export async function purgeStatistics(db: Kysely<Database>, purge: PurgedRevision): Promise<void> {
  const { scopeId, expectedRevision, revision } = purge;
  const active = purge.activeEntryErased ? 1 : 0;
  const { rows } = await sql<{ scope_id: string }>`
    UPDATE pc_scope_statistics s SET revision = ${revision}, projections = s.projections + ${purge.projections}::bigint,
      projection_length = s.projection_length + ${purge.projectionLength}::float8,
      active_entries = s.active_entries - ${active}::bigint
    WHERE s.scope_id = ${scopeId} AND s.revision = ${expectedRevision}
    RETURNING s.scope_id`.execute(db);
  if (rows.length === 0) {
    // No row describes the previous head: count this one, as a first write does.
    await advanceStatistics(db, {
      scopeId,
      expectedRevision,
      revision,
      supersededVersionIds: [],
      reprojectedVersionIds: [],
      activeVersionIds: [],
      profileIds: purge.profileIds,
    });
    return;
  }
  // The erased entry, when active, was missing a vector of every profile it had none of.
  await sql`
    UPDATE pc_scope_vector_statistics s SET revision = ${revision},
      missing = s.missing - CASE WHEN ${active}::int = 1 AND NOT (s.profile_id = ANY(${[...purge.embeddedProfiles]}::text[]))
        THEN 1 ELSE 0 END
    WHERE s.scope_id = ${scopeId} AND s.revision = ${expectedRevision}`.execute(db);
  await sql`DELETE FROM pc_scope_vector_statistics s WHERE s.scope_id = ${scopeId} AND s.revision <> ${revision}`.execute(
    db,
  );
  if (purge.profileIds.length > 0) await countMissingVectors(db, scopeId, revision, purge.profileIds);
}
