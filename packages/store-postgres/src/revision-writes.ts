import {
  type EntryVersion,
  type LexicalProjectionPolicy,
  type MemoryRef,
  type MemoryWriteTransaction,
  type NewEntryVersion,
  type PurgeEntryWrite,
  type PurgeTombstone,
  RevisionConflictError,
  type RevisionOperation,
  type VersionOperation,
} from '@powercontext/memory-core';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { ActiveEntryCounts } from './active-entries.js';
import type { Database } from './database.js';
import { refuseDeletedScope } from './deleted-scopes.js';
import { type EmbeddingProfiles, insertEmbeddings } from './embedding-profiles.js';
import { insertEntities } from './entity-index.js';
import { entryAt, findActiveByHash, lockHead } from './entry-reads.js';
import { ENTRY_VERSION_COLUMNS, type EntryVersionRow, toEntryVersion } from './entry-version-row.js';
import { insertIdempotencyRecord } from './idempotency-records.js';
import { planLexicalProjections, replaceProjections } from './lexical-projections.js';
import { currentProjectionsOf, eraseEntry, planErase, readTombstone } from './purge-entry.js';
import { advanceStatistics, purgeStatistics } from './search-statistics.js';
import type { Analyze } from './store-sql.js';

export interface RevisionWritesOptions {
  db: Kysely<Database>;
  analyze: Analyze;
  profiles: EmbeddingProfiles;
  activeEntries: ActiveEntryCounts;
}

/**
 * A scope's writes: one transaction that locks the head row, checks the compare-and-swap and appends
 * one revision, either new entry versions (with their vectors, lexical projections and the head's
 * search statistics) or a purge.
 */
export class RevisionWrites {
  readonly #db: Kysely<Database>;
  readonly #analyzed: Analyze;
  readonly #profiles: EmbeddingProfiles;
  readonly #activeEntries: ActiveEntryCounts;

  constructor(options: RevisionWritesOptions) {
    this.#db = options.db;
    this.#analyzed = options.analyze;
    this.#profiles = options.profiles;
    this.#activeEntries = options.activeEntries;
  }

  write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ): Promise<T> {
    return this.#db.transaction().execute(async (trx) => {
      const memory = await lockHead(trx, scopeId);
      if (!memory) await refuseDeletedScope(trx, scopeId);
      if ((memory?.head_revision ?? 0) !== expectedRevision)
        throw new RevisionConflictError(scopeId, expectedRevision);
      let appended = false;
      const once = () => {
        if (appended) throw new Error('a write appends one revision: appendRevision or purgeEntry, once');
        appended = true;
      };
      return work({
        findActiveByContentHash: (hashes) => findActiveByHash(trx, scopeId, expectedRevision, hashes),
        currentVersion: async (entryId) =>
          (await entryAt(trx, scopeId, entryId, expectedRevision)) ?? undefined,
        appendRevision: async (operation, versions, projection) => {
          once();
          return this.#appendRevision(
            trx,
            scopeId,
            memory?.artifact_id,
            expectedRevision,
            operation,
            versions,
            projection,
          );
        },
        recordIdempotency: (record) => insertIdempotencyRecord(trx, scopeId, expectedRevision, record),
        purgedEntry: (entryId) => readTombstone(trx, scopeId, entryId),
        purgeEntry: async (purge, projection) => {
          once();
          if (!memory) throw new Error(`entry ${purge.entryId} has no current version to purge`);
          return this.#purgeEntry(trx, scopeId, memory.artifact_id, expectedRevision, purge, projection);
        },
      });
    });
  }

  /** Moves the head (or creates the memory) and records the revision; returns the artifact id. */
  async #moveHead(
    trx: Transaction<Database>,
    scopeId: string,
    artifactId: string | undefined,
    expectedRevision: number,
    operation: RevisionOperation,
  ): Promise<string> {
    const revision = expectedRevision + 1;
    // The head moves (or the memory is created) and the revision is recorded in one round trip; no
    // row back means another writer won the compare-and-swap.
    const { rows: headRows } = await (artifactId === undefined
      ? sql<{ artifact_id: string }>`
          WITH created AS (
            INSERT INTO pc_memories (scope_id, artifact_id, head_revision)
            VALUES (${scopeId}, ${crypto.randomUUID()}::uuid, ${revision})
            ON CONFLICT DO NOTHING RETURNING artifact_id
          )
          INSERT INTO pc_revisions (scope_id, artifact_id, revision, operation)
          SELECT ${scopeId}, c.artifact_id, ${revision}, ${operation} FROM created c RETURNING artifact_id`
      : sql<{ artifact_id: string }>`
          WITH moved AS (
            UPDATE pc_memories SET head_revision = ${revision}
            WHERE scope_id = ${scopeId} AND head_revision = ${expectedRevision} RETURNING artifact_id
          )
          INSERT INTO pc_revisions (scope_id, artifact_id, revision, operation)
          SELECT ${scopeId}, m.artifact_id, ${revision}, ${operation} FROM moved m RETURNING artifact_id`
    ).execute(trx);
    const artifact = headRows[0]?.artifact_id;
    if (artifact === undefined) throw new RevisionConflictError(scopeId, expectedRevision);
    return artifact;
  }

  async #appendRevision(
    trx: Transaction<Database>,
    scopeId: string,
    artifactId: string | undefined,
    expectedRevision: number,
    operation: VersionOperation,
    versions: readonly NewEntryVersion[],
    projection: LexicalProjectionPolicy,
  ): Promise<{ memory: MemoryRef; versions: EntryVersion[] }> {
    const revision = expectedRevision + 1;
    const artifact = await this.#moveHead(trx, scopeId, artifactId, expectedRevision, operation);
    const superseded = versions.flatMap((v) => (v.previousVersionId ? [v.previousVersionId] : []));
    if (superseded.length > 0) {
      await trx
        .updateTable('pc_entry_versions')
        .set({ superseded_revision: revision })
        .where('scope_id', '=', scopeId)
        .where('entry_version_id', 'in', superseded)
        .execute();
    }
    const rows = versions.map((v) => ({
      entry_version_id: v.entryVersionId,
      entry_id: v.entryId,
      version: v.version,
      previous_version_id: v.previousVersionId,
      kind: v.kind,
      text: v.text,
      content_hash: v.contentHash,
      sources: v.sources,
      position_source: v.position?.sourceId ?? null,
      position_order: v.position?.order ?? null,
      metadata: v.metadata,
      tags: v.tags,
      pinned: v.pinned,
      occurred_at: v.occurredAt,
      state: v.state,
    }));
    const inserted = await sql<EntryVersionRow>`
      INSERT INTO pc_entry_versions AS v (entry_version_id, scope_id, entry_id, version, previous_version_id, kind, text,
        content_hash, revision, operation, sources, position_source, position_order, metadata, tags, pinned, occurred_at, state, search_vector, lexical_length)
      SELECT r.entry_version_id, ${scopeId}, r.entry_id, r.version, r.previous_version_id, r.kind, r.text, r.content_hash,
        ${revision}, ${operation}, r.sources, r.position_source, r.position_order, r.metadata, r.tags, r.pinned, r.occurred_at, r.state, d.search_vector,
        (SELECT coalesce(sum(coalesce(array_length(t.positions, 1), 1)), 0) FROM unnest(d.search_vector) t)
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(entry_version_id uuid, entry_id uuid, version integer,
        previous_version_id uuid, kind text, text text, content_hash text, sources jsonb, position_source text,
        position_order float8[], metadata jsonb, tags text[], pinned boolean, occurred_at timestamptz, state text)
      CROSS JOIN LATERAL (
        SELECT CASE WHEN r.state = 'active' THEN ${this.#analyzed(sql`r.text`)} ELSE ''::tsvector END AS search_vector
      ) d
      RETURNING ${ENTRY_VERSION_COLUMNS}`.execute(trx);
    await insertEntities(trx, scopeId, versions);
    if (superseded.length > 0) {
      await trx
        .updateTable('pc_lexical_projections')
        .set({ superseded_revision: revision })
        .where('scope_id', '=', scopeId)
        .where('entry_version_id', 'in', superseded)
        .where('superseded_revision', 'is', null)
        .execute();
    }
    const { planned, replaced } = await planLexicalProjections(trx, scopeId, projection, {
      sourceIds: [...new Set(versions.flatMap((v) => (v.position ? [v.position.sourceId] : [])))],
      unpositioned: versions.filter((v) => v.state === 'active' && !v.position).map((v) => v.entryVersionId),
    });
    await replaceProjections(trx, scopeId, projection, planned, replaced, revision);
    const embeddings = versions.flatMap((v) =>
      v.embedding && v.state === 'active'
        ? [{ entryVersionId: v.entryVersionId, profileId: v.embedding.profileId, vector: v.embedding.vector }]
        : [],
    );
    if (embeddings.length > 0) await insertEmbeddings(trx, scopeId, embeddings);
    await advanceStatistics(trx, {
      scopeId,
      expectedRevision,
      revision,
      supersededVersionIds: superseded,
      reprojectedVersionIds: planned.map((p) => p.entryVersionId),
      activeVersionIds: versions.filter((v) => v.state === 'active').map((v) => v.entryVersionId),
      profileIds: [...new Set([...this.#profiles.ids(), ...embeddings.map((e) => e.profileId)])],
    });
    await this.#profiles.indexWhenOutgrown(trx, scopeId, revision);

    const byId = new Map(inserted.rows.map((row) => [row.entry_version_id, toEntryVersion(row)]));
    return {
      memory: { artifactId: artifact, scopeId, revision },
      versions: versions.map((v) => byId.get(v.entryVersionId)!),
    };
  }

  /**
   * Writes the purge revision and erases the entry (see eraseEntry), re-projects the entry's source at
   * the new head without it, and moves the head's search statistics by what changed (the projections of
   * the entry's source, the entry itself): they then equal those of a scope that never held the entry.
   * Cached active-entry counts of the scope are dropped, since the erase changed older revisions too.
   */
  async #purgeEntry(
    trx: Transaction<Database>,
    scopeId: string,
    artifactId: string,
    expectedRevision: number,
    purge: PurgeEntryWrite,
    projection: LexicalProjectionPolicy,
  ): Promise<{ memory: MemoryRef; tombstone: PurgeTombstone }> {
    const revision = expectedRevision + 1;
    const artifact = await this.#moveHead(trx, scopeId, artifactId, expectedRevision, 'purge');
    const plan = await planErase(trx, scopeId, purge.entryId);
    const before = await currentProjectionsOf(trx, scopeId, plan);
    const tombstone = await eraseEntry(trx, scopeId, purge, revision, plan);
    if (plan.sources.length > 0) {
      const { planned, replaced } = await planLexicalProjections(trx, scopeId, projection, {
        sourceIds: plan.sources,
        unpositioned: [],
      });
      await replaceProjections(trx, scopeId, projection, planned, replaced, revision);
    }
    const after = await currentProjectionsOf(trx, scopeId, plan);
    await purgeStatistics(trx, {
      scopeId,
      expectedRevision,
      revision,
      projections: after.n - before.n,
      projectionLength: after.length - before.length,
      activeEntryErased: plan.current.state === 'active',
      embeddedProfiles: plan.embeddedProfiles,
      profileIds: this.#profiles.ids(),
    });
    this.#activeEntries.forgetScope(scopeId);
    return { memory: { artifactId: artifact, scopeId, revision }, tombstone };
  }
}
