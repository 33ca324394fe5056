import { createHash } from 'node:crypto';
import {
  type ChannelCandidate,
  type EmbeddingProfile,
  type EmbeddingToStore,
  type EntryVersion,
  type IdempotencyRecord,
  type LexicalMatchQuery,
  type LexicalMatchReport,
  type LexicalMatchSources,
  type LexicalProjectionPolicy,
  type LexicalProjectionState,
  type LexicalSearchQuery,
  type LexicalSearchResult,
  type ListChangesQuery,
  type ListEntriesQuery,
  type MemoryRef,
  type MemoryStore,
  type MemoryWriteTransaction,
  type NewEntryVersion,
  type PlannedProjection,
  type ProjectionNeighbour,
  type PurgedChange,
  type PurgedEntryMarker,
  type PurgeEntryWrite,
  type PurgeTombstone,
  planProjections,
  type RevisionChange,
  RevisionConflictError,
  type RevisionOperation,
  type SearchHead,
  type VectorIndexState,
  type VectorSearchQuery,
  type VersionOperation,
} from '@powercontext/memory-core';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from './database.js';
import {
  ENTRY_VERSION_COLUMNS,
  type EntryVersionRow,
  liveAt,
  toEntryVersion,
  parseOrder as toEntryVersionOrder,
  visibleAt,
} from './entry-version-row.js';
import { findIdempotencyRecord, insertIdempotencyRecord } from './idempotency-records.js';
import {
  LexicalIndexCache,
  type LexicalIndexCacheOptions,
  type LexicalIndexRow,
  lexicalIndexOf,
  type ScopeLexicalIndex,
  scoreLexicalIndex,
} from './lexical-index-cache.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';
import { executePrepared } from './prepared.js';
import { projectionParts } from './projection-parts.js';
import {
  currentProjectionsOf,
  eraseEntry,
  listPurgedChanges,
  listPurgedEntries,
  planErase,
  readTombstone,
} from './purge-entry.js';
import {
  advanceStatistics,
  purgeStatistics,
  recountLexicalStatistics,
  subtractEmbedded,
} from './search-statistics.js';
import { guardStoreErrors } from './store-errors.js';
import {
  isSparseQuery,
  type ScopeVectorIndex,
  VectorIndexCache,
  type VectorIndexCacheOptions,
  type VectorIndexRow,
  vectorCandidates,
  vectorIndexOf,
} from './vector-index-cache.js';
import { quotedArrayLiteral, toSparseVectorLiteral, toVectorLiteral } from './vector-literal.js';

export interface PostgresMemoryStoreOptions {
  db: Kysely<Database>;
  /** PostgreSQL text search configuration for the lexical index, e.g. `english`. */
  textSearchConfig: string;
  /** Runs after the database is destroyed (e.g. releasing a lock file). */
  onClose?: () => Promise<void> | void;
  /**
   * Scopes with at most this many vectors of a profile are searched exactly; larger ones may use the
   * profile's HNSW index (approximate). Default 20,000.
   */
  exactVectorScanLimit?: number;
  /**
   * Keep the lexical indexes of scopes searched often in memory, keyed by (scope, revision), and answer
   * the lexical channel from them (LexicalIndexCache; RFC 0002, "The lexical index in memory"). The
   * answers are those of the lexical statement. `false` turns it off. Default: on, with its defaults.
   */
  lexicalIndexCache?: LexicalIndexCacheOptions | LexicalIndexCache | false;
  /**
   * Keep the sparse vectors of scopes searched often in memory, keyed by (scope, profile, revision), and
   * let them choose which vectors the database scores (VectorIndexCache; RFC 0002, "The vector index in
   * memory"). The answers are those of the exact scan. `false` turns it off. Default: on, with its
   * defaults.
   */
  vectorIndexCache?: VectorIndexCacheOptions | VectorIndexCache | false;
}

/** The MemoryStore port on PostgreSQL-compatible databases (PostgreSQL through `pg`, or PGlite). */
export class PostgresMemoryStore implements MemoryStore {
  readonly #db: Kysely<Database>;
  readonly #config: string;
  readonly #onClose: (() => Promise<void> | void) | undefined;
  readonly #exactVectorScanLimit: number;
  /** Profiles prepared by this store: their completeness is kept in every write. */
  readonly #profiles = new Map<string, EmbeddingProfile>();
  /** Profiles whose HNSW index exists. */
  readonly #indexedProfiles = new Set<string>();
  /**
   * Active entries per (scope, revision), as read with the statistics: a fact about a revision that
   * never changes, so it cannot go stale. It lets a vector search choose exact or HNSW without a probe.
   */
  readonly #activeEntries = new Map<string, number>();
  readonly #lexicalIndexes: LexicalIndexCache | undefined;
  readonly #vectorIndexes: VectorIndexCache | undefined;
  #closed = false;

  constructor(options: PostgresMemoryStoreOptions) {
    this.#db = options.db;
    this.#config = options.textSearchConfig;
    this.#onClose = options.onClose;
    this.#exactVectorScanLimit = options.exactVectorScanLimit ?? 20_000;
    const cache = options.lexicalIndexCache;
    this.#lexicalIndexes =
      cache === false ? undefined : cache instanceof LexicalIndexCache ? cache : new LexicalIndexCache(cache);
    const vectors = options.vectorIndexCache;
    this.#vectorIndexes =
      vectors === false
        ? undefined
        : vectors instanceof VectorIndexCache
          ? vectors
          : new VectorIndexCache(vectors);
  }

  /**
   * The lexical analysis of entries and queries alike: accents folded (`unaccent`, migration 0008),
   * then the text search configuration (stop words, stemming). Both sides must go through this one
   * expression, or the index stops matching the queries.
   */
  #analyzed(text: string | RawBuilder<unknown>) {
    return sql<string>`to_tsvector(${this.#config}::regconfig, unaccent(${text}))`;
  }

  head(scopeId: string): Promise<MemoryRef | undefined> {
    return guardStoreErrors(async () => {
      const row = await this.#db
        .selectFrom('pc_memories')
        .select(['artifact_id', 'head_revision'])
        .where('scope_id', '=', scopeId)
        .executeTakeFirst();
      return row ? { artifactId: row.artifact_id, scopeId, revision: row.head_revision } : undefined;
    });
  }

  write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ): Promise<T> {
    return guardStoreErrors(() =>
      this.#db.transaction().execute(async (trx) => {
        const memory = await trx
          .selectFrom('pc_memories')
          .select(['artifact_id', 'head_revision'])
          .where('scope_id', '=', scopeId)
          .forUpdate()
          .executeTakeFirst();
        if ((memory?.head_revision ?? 0) !== expectedRevision)
          throw new RevisionConflictError(scopeId, expectedRevision);
        let appended = false;
        const once = () => {
          if (appended) throw new Error('a write appends one revision: appendRevision or purgeEntry, once');
          appended = true;
        };
        return work({
          findActiveByContentHash: (hashes) => this.#findActiveByHash(trx, scopeId, expectedRevision, hashes),
          currentVersion: async (entryId) =>
            (await this.#entryAt(trx, scopeId, entryId, expectedRevision)) ?? undefined,
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
      }),
    );
  }

  idempotencyRecord(scopeId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    return guardStoreErrors(() => findIdempotencyRecord(this.#db, scopeId, key, now));
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
          INSERT INTO pc_revisions (artifact_id, revision, operation)
          SELECT c.artifact_id, ${revision}, ${operation} FROM created c RETURNING artifact_id`
      : sql<{ artifact_id: string }>`
          WITH moved AS (
            UPDATE pc_memories SET head_revision = ${revision}
            WHERE scope_id = ${scopeId} AND head_revision = ${expectedRevision} RETURNING artifact_id
          )
          INSERT INTO pc_revisions (artifact_id, revision, operation)
          SELECT m.artifact_id, ${revision}, ${operation} FROM moved m RETURNING artifact_id`
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
      state: v.state,
    }));
    const inserted = await sql<EntryVersionRow>`
      INSERT INTO pc_entry_versions AS v (entry_version_id, scope_id, entry_id, version, previous_version_id, kind, text,
        content_hash, revision, operation, sources, position_source, position_order, metadata, state, search_vector, lexical_length)
      SELECT r.entry_version_id, ${scopeId}, r.entry_id, r.version, r.previous_version_id, r.kind, r.text, r.content_hash,
        ${revision}, ${operation}, r.sources, r.position_source, r.position_order, r.metadata, r.state, d.search_vector,
        (SELECT coalesce(sum(coalesce(array_length(t.positions, 1), 1)), 0) FROM unnest(d.search_vector) t)
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(entry_version_id uuid, entry_id uuid, version integer,
        previous_version_id uuid, kind text, text text, content_hash text, sources jsonb, position_source text,
        position_order float8[], metadata jsonb, state text)
      CROSS JOIN LATERAL (
        SELECT CASE WHEN r.state = 'active' THEN ${this.#analyzed(sql`r.text`)} ELSE ''::tsvector END AS search_vector
      ) d
      RETURNING ${ENTRY_VERSION_COLUMNS}`.execute(trx);
    if (superseded.length > 0) {
      await trx
        .updateTable('pc_lexical_projections')
        .set({ superseded_revision: revision })
        .where('entry_version_id', 'in', superseded)
        .where('superseded_revision', 'is', null)
        .execute();
    }
    const { planned, replaced } = await this.#planProjections(trx, scopeId, projection, {
      sourceIds: [...new Set(versions.flatMap((v) => (v.position ? [v.position.sourceId] : [])))],
      unpositioned: versions.filter((v) => v.state === 'active' && !v.position).map((v) => v.entryVersionId),
    });
    await this.#replaceProjections(trx, scopeId, projection, planned, replaced, revision);
    const embeddings = versions.flatMap((v) =>
      v.embedding && v.state === 'active'
        ? [{ entryVersionId: v.entryVersionId, profileId: v.embedding.profileId, vector: v.embedding.vector }]
        : [],
    );
    if (embeddings.length > 0) await this.#insertEmbeddings(trx, scopeId, embeddings);
    await advanceStatistics(trx, {
      scopeId,
      expectedRevision,
      revision,
      supersededVersionIds: superseded,
      reprojectedVersionIds: planned.map((p) => p.entryVersionId),
      activeVersionIds: versions.filter((v) => v.state === 'active').map((v) => v.entryVersionId),
      profileIds: [...new Set([...this.#profiles.keys(), ...embeddings.map((e) => e.profileId)])],
    });
    await this.#indexWhenOutgrown(trx, scopeId, revision);

    const byId = new Map(inserted.rows.map((row) => [row.entry_version_id, toEntryVersion(row)]));
    return {
      memory: { artifactId: artifact, scopeId, revision },
      versions: versions.map((v) => byId.get(v.entryVersionId)!),
    };
  }

  /** Supersedes the current projections of `replaced` at `revision` and inserts the planned ones. */
  async #replaceProjections(
    trx: Transaction<Database>,
    scopeId: string,
    projection: LexicalProjectionPolicy,
    planned: readonly PlannedProjection[],
    replaced: readonly string[],
    revision: number,
  ) {
    if (planned.length === 0) return;
    // Only re-projected versions have a current projection to supersede; new versions have none.
    if (replaced.length > 0) {
      await trx
        .updateTable('pc_lexical_projections')
        .set({ superseded_revision: revision })
        .where('entry_version_id', 'in', replaced)
        .where('superseded_revision', 'is', null)
        .execute();
    }
    await insertProjections(
      trx,
      scopeId,
      projection.id,
      planned.map((p) => ({ ...p, revision })),
    );
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
      const { planned, replaced } = await this.#planProjections(trx, scopeId, projection, {
        sourceIds: plan.sources,
        unpositioned: [],
      });
      await this.#replaceProjections(trx, scopeId, projection, planned, replaced, revision);
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
      profileIds: [...this.#profiles.keys()],
    });
    for (const key of this.#activeEntries.keys()) {
      if (key.endsWith(`:${scopeId}`)) this.#activeEntries.delete(key);
    }
    return { memory: { artifactId: artifact, scopeId, revision }, tombstone };
  }

  async #insertEmbeddings(
    db: Kysely<Database>,
    scopeId: string,
    embeddings: readonly { entryVersionId: string; profileId: string; vector: readonly number[] }[],
  ) {
    if (embeddings.length === 0) return;
    // One array per column: the statement's text stays the same whatever the batch size.
    await sql`
      INSERT INTO pc_embeddings (entry_version_id, profile_id, scope_id, embedding)
      SELECT e.entry_version_id, e.profile_id, ${scopeId}, e.embedding
      FROM unnest(${embeddings.map((e) => e.entryVersionId)}::uuid[], ${embeddings.map((e) => e.profileId)}::text[],
        ${quotedArrayLiteral(embeddings.map((e) => toSparseVectorLiteral(e.vector)))}::sparsevec[]) AS e(entry_version_id, profile_id, embedding)
      ON CONFLICT (entry_version_id, profile_id) DO NOTHING`.execute(db);
  }

  async #findActiveByHash(
    db: Kysely<Database>,
    scopeId: string,
    revision: number,
    hashes: readonly string[],
  ) {
    if (hashes.length === 0) return new Map<string, EntryVersion>();
    const { rows } = await sql<EntryVersionRow>`
      SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
      WHERE ${liveAt(scopeId, revision)} AND v.state = 'active' AND v.content_hash = ANY(${[...hashes]}::text[])
      ORDER BY v.revision DESC, v.entry_id DESC`.execute(db);
    return new Map(rows.map((row) => [row.content_hash, toEntryVersion(row)]));
  }

  async #entryAt(db: Kysely<Database>, scopeId: string, entryId: string, revision: number) {
    const { rows } = await sql<EntryVersionRow>`
      SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
      WHERE ${liveAt(scopeId, revision)} AND v.entry_id = ${entryId}::uuid`.execute(db);
    return rows[0] ? toEntryVersion(rows[0]) : undefined;
  }

  /**
   * The projections to rebuild at the head (see planProjections): the active members of the touched
   * sources, and the given unpositioned versions, compared with their current projection. At the head
   * a live version is one not superseded, which the partial position index serves directly.
   */
  async #planProjections(
    db: Kysely<Database>,
    scopeId: string,
    projection: LexicalProjectionPolicy,
    touched: { sourceIds: readonly string[]; unpositioned: readonly string[] } | 'all',
  ): Promise<{ planned: PlannedProjection[]; replaced: string[] }> {
    type MemberRow = {
      entry_id: string;
      entry_version_id: string;
      position_source: string | null;
      position_order: number[] | string | null;
      policy_id: string | null;
      context: unknown;
    };
    // Each member comes with its current projection (if any) in the same read.
    const head = sql`v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'`;
    const members = sql`
      SELECT v.entry_id, v.entry_version_id, v.position_source, v.position_order, p.policy_id, p.context
      FROM pc_entry_versions v
      LEFT JOIN pc_lexical_projections p ON p.entry_version_id = v.entry_version_id AND p.superseded_revision IS NULL`;
    const { rows } =
      touched === 'all'
        ? await sql<MemberRow>`${members} WHERE ${head}`.execute(db)
        : touched.sourceIds.length === 0
          ? { rows: [] as MemberRow[] }
          : await sql<MemberRow>`${members}
              WHERE ${head} AND v.position_source IS NOT NULL
                AND v.position_source = ANY(${[...touched.sourceIds]}::text[])`.execute(db);
    const sources = new Map<string, { entryId: string; entryVersionId: string; order: number[] }[]>();
    // A write names its new unpositioned versions (they have no projection yet); a rebuild finds them
    // among the head's rows.
    const unpositioned = touched === 'all' ? [] : [...touched.unpositioned];
    const currentById = new Map<string, { policyId: string; context: ProjectionNeighbour[] }>();
    for (const row of rows) {
      if (row.policy_id !== null) {
        currentById.set(row.entry_version_id, {
          policyId: row.policy_id,
          context: parseJsonValue(row.context) as ProjectionNeighbour[],
        });
      }
      if (row.position_source === null || row.position_order === null) {
        unpositioned.push(row.entry_version_id);
        continue;
      }
      const list = sources.get(row.position_source) ?? [];
      list.push({
        entryId: row.entry_id,
        entryVersionId: row.entry_version_id,
        order: toEntryVersionOrder(row.position_order),
      });
      sources.set(row.position_source, list);
    }
    const planned = planProjections({
      policy: projection,
      sources,
      unpositioned,
      current: (id) => currentById.get(id),
    });
    return {
      planned,
      replaced: planned.flatMap((p) => (currentById.has(p.entryVersionId) ? [p.entryVersionId] : [])),
    };
  }

  lexicalProjectionState(
    scopeId: string,
    revision: number,
    policyId: string,
  ): Promise<LexicalProjectionState> {
    return guardStoreErrors(async () => {
      const { rows } = await sql<{ stale: number }>`
        SELECT count(*)::int AS stale FROM pc_entry_versions v
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
          AND NOT EXISTS (
            SELECT 1 FROM pc_lexical_projections p
            WHERE p.entry_version_id = v.entry_version_id AND p.policy_id = ${policyId}
              AND p.revision <= ${revision} AND (p.superseded_revision IS NULL OR p.superseded_revision > ${revision}))`.execute(
        this.#db,
      );
      const stale = rows[0]?.stale ?? 0;
      return { policyId, stale, complete: stale === 0 };
    });
  }

  rebuildLexicalProjection(scopeId: string, projection: LexicalProjectionPolicy): Promise<number> {
    return guardStoreErrors(() =>
      this.#db.transaction().execute(async (trx) => {
        // The head row lock keeps writers out while the projections are swapped.
        const memory = await trx
          .selectFrom('pc_memories')
          .select('head_revision')
          .where('scope_id', '=', scopeId)
          .forUpdate()
          .executeTakeFirst();
        if (!memory) return 0;
        const { planned } = await this.#planProjections(trx, scopeId, projection, 'all');
        if (planned.length === 0) return 0;
        // Rebuilt in place: each new projection keeps the revision range of the one it replaces,
        // since the memory itself did not change.
        // Postings first: they name their projection without a foreign key (migration 0006), and are
        // found through the scope prefix of their primary key.
        await sql`
          DELETE FROM pc_lexical_postings l USING pc_lexical_projections p
          WHERE l.scope_id = ${scopeId} AND l.projection_id = p.projection_id
            AND p.entry_version_id = ANY(${planned.map((p) => p.entryVersionId)}::uuid[]) AND p.superseded_revision IS NULL`.execute(
          trx,
        );
        const { rows: replaced } = await sql<{ entry_version_id: string; revision: number }>`
          DELETE FROM pc_lexical_projections p
          WHERE p.entry_version_id = ANY(${planned.map((p) => p.entryVersionId)}::uuid[]) AND p.superseded_revision IS NULL
          RETURNING p.entry_version_id, p.revision`.execute(trx);
        const since = new Map(replaced.map((row) => [row.entry_version_id, row.revision]));
        await insertProjections(
          trx,
          scopeId,
          projection.id,
          planned.map((p) => ({ ...p, revision: since.get(p.entryVersionId) ?? memory.head_revision })),
        );
        await recountLexicalStatistics(trx, scopeId);
        return planned.length;
      }),
    );
  }

  revisionExists(scopeId: string, revision: number): Promise<boolean> {
    return guardStoreErrors(async () => {
      const row = await this.#db
        .selectFrom('pc_revisions as r')
        .innerJoin('pc_memories as m', 'm.artifact_id', 'r.artifact_id')
        .select('r.revision')
        .where('m.scope_id', '=', scopeId)
        .where('r.revision', '=', revision)
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  entryAt(scopeId: string, entryId: string, revision: number) {
    return guardStoreErrors(() => this.#entryAt(this.#db, scopeId, entryId, revision));
  }

  entryVersion(scopeId: string, entryVersionId: string) {
    return guardStoreErrors(async () => {
      const { rows } = await sql<EntryVersionRow>`
        SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.entry_version_id = ${entryVersionId}::uuid`.execute(this.#db);
      return rows[0] ? toEntryVersion(rows[0]) : undefined;
    });
  }

  entryVersions(scopeId: string, entryVersionIds: readonly string[]) {
    return guardStoreErrors(async () => {
      if (entryVersionIds.length === 0) return new Map<string, EntryVersion>();
      const { rows } = await sql<EntryVersionRow>`
        SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
        WHERE v.entry_version_id = ANY(${[...entryVersionIds]}::uuid[]) AND v.scope_id = ${scopeId}`.execute(
        this.#db,
      );
      return new Map(rows.map((row) => [row.entry_version_id, toEntryVersion(row)]));
    });
  }

  listEntries(query: ListEntriesQuery) {
    return guardStoreErrors(async () => {
      const { rows } = await sql<EntryVersionRow>`
        SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
        WHERE ${liveAt(query.scopeId, query.revision)}
          ${query.state === 'all' ? sql`` : sql`AND v.state = ${query.state}`}
          ${query.afterEntryId === undefined ? sql`` : sql`AND v.entry_id > ${query.afterEntryId}::uuid`}
        ORDER BY v.entry_id LIMIT ${query.limit}`.execute(this.#db);
      return rows.map(toEntryVersion);
    });
  }

  listChanges(query: ListChangesQuery): Promise<RevisionChange[]> {
    return guardStoreErrors(async () => {
      const after = query.after;
      const { rows } = await sql<EntryVersionRow>`
        SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
        WHERE v.scope_id = ${query.scopeId} AND v.revision > ${query.fromRevision} AND v.revision <= ${query.toRevision}
          ${after ? sql`AND (v.revision, v.entry_version_id) > (${after.revision}, ${after.entryVersionId}::uuid)` : sql``}
        ORDER BY v.revision, v.entry_version_id LIMIT ${query.limit}`.execute(this.#db);
      return rows.map((row) => ({
        revision: row.revision,
        operation: row.operation as VersionOperation,
        version: toEntryVersion(row),
      }));
    });
  }

  purgedEntry(scopeId: string, entryId: string): Promise<PurgeTombstone | undefined> {
    return guardStoreErrors(() => readTombstone(this.#db, scopeId, entryId));
  }

  listPurgedEntries(query: ListEntriesQuery): Promise<PurgedEntryMarker[]> {
    return guardStoreErrors(() => listPurgedEntries(this.#db, query));
  }

  listPurgedChanges(query: ListChangesQuery): Promise<PurgedChange[]> {
    return guardStoreErrors(() => listPurgedChanges(this.#db, query));
  }

  lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    return guardStoreErrors(async () => {
      const held = this.#lexicalIndexes?.lookup(query.scopeId, query.revision);
      if (held) {
        const answer = await this.#lexicalSearchInMemory(held, query);
        if (answer) return answer;
      }
      return this.#lexicalSearchStatement(query);
    });
  }

  /**
   * The lexical channel over an index held in memory (LexicalIndexCache): one short read analyses the
   * query (its distinct lexemes, sorted as the statement sorts them) and reads the scope's purge mark;
   * if a purge happened since the index was read, the index is dropped and undefined returned.
   */
  async #lexicalSearchInMemory(
    index: ScopeLexicalIndex,
    query: LexicalSearchQuery,
  ): Promise<LexicalSearchResult | undefined> {
    const [probe] = await executePrepared(
      this.#db,
      sql<{ lexemes: string[]; purged: number | null }>`
      SELECT coalesce((SELECT array_agg(DISTINCT t.lexeme) FROM unnest(${this.#analyzed(query.query)}) t), '{}') AS lexemes,
        ${purgeMarkOf(query.scopeId)} AS purged`,
    );
    if ((probe?.purged ?? null) !== index.purgeMark) {
      this.#lexicalIndexes?.drop(query.scopeId);
      return undefined;
    }
    const lexemes = probe?.lexemes ?? [];
    this.#lexicalIndexes!.answered();
    return {
      queryTermCount: lexemes.length,
      candidates: scoreLexicalIndex(index, lexemes, query.limit, query.bm25),
    };
  }

  async #lexicalSearchStatement(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    const { k1, b, delta } = query.bm25;
    // BM25 over the postings of live entries: idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
    // tf part = tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)) + delta, summed over matched query lexemes.
    // One statement whose plan does not depend on table statistics (a new scope has none; PGlite is
    // never analysed): MATERIALIZED steps pin the order. N and avgdl come from the scope's statistics
    // row when it describes this revision (else they are counted); postings are read through their
    // (scope, lexeme) key and joined by primary key to their projection for visibility and length;
    // the top `limit` (and any rows tied with the last) are chosen on the score alone (a bounded
    // top-N sort finds the limit's score, then a filter keeps every row at or above it), and only those
    // are joined to their entry version rows for the tie-break: the answer is identities only, and the
    // search reads the content of the candidates fusion keeps (`entryVersions`). A visible
    // projection always belongs to a version that is live and active at the revision (RFC 0007).
    // scoreLexicalIndex computes the same in memory; a change here must be made there too.
    const rows = await executePrepared(
      this.#db,
      sql<CandidateRow & { score: number; matched_terms: number; query_terms: number; total_length: number }>`
      WITH q AS MATERIALIZED (
        SELECT coalesce(array_agg(DISTINCT t.lexeme), '{}') AS lexemes
        FROM unnest(${this.#analyzed(query.query)}) t
      ), ${bm25Statistics(query.scopeId, query.revision)}, postings AS MATERIALIZED (
        SELECT l.lexeme, l.projection_id, l.tf
        FROM pc_lexical_postings l
        WHERE l.scope_id = ${query.scopeId} AND l.lexeme = ANY ((SELECT lexemes FROM q)::text[])
      ), matches AS MATERIALIZED (
        SELECT l.lexeme, p.entry_version_id, l.tf, p.lexical_length AS len,
          count(*) OVER (PARTITION BY l.lexeme)::float8 AS df
        FROM postings l JOIN pc_lexical_projections p ON p.projection_id = l.projection_id
        WHERE ${projectionVisibleAt(query.revision)}
      ), scored AS MATERIALIZED (
        SELECT m.entry_version_id,
          sum(${bm25Idf(sql`s.n`, sql`m.df`)}
            * (m.tf * (${k1}::float8 + 1) / (m.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * m.len / greatest(s.avgdl, 1e-9))) + ${delta}::float8)
          ) AS score,
          count(*)::int AS matched_terms
        FROM matches m CROSS JOIN stats s
        GROUP BY m.entry_version_id
      ), kth AS MATERIALIZED (
        SELECT s.score FROM scored s ORDER BY s.score DESC LIMIT 1 OFFSET ${Math.max(query.limit, 1) - 1}
      ), top AS MATERIALIZED (
        SELECT * FROM scored s WHERE s.score >= coalesce((SELECT k.score FROM kth k), '-Infinity'::float8)
      )
      SELECT v.entry_id, v.entry_version_id, top.score, top.matched_terms,
        cardinality((SELECT lexemes FROM q)) AS query_terms, (SELECT s.n * s.avgdl FROM stats s) AS total_length
      FROM top JOIN pc_entry_versions v USING (entry_version_id)
      WHERE v.state = 'active'
      ORDER BY top.score DESC, v.entry_id, v.entry_version_id
      LIMIT ${query.limit}`,
    );
    const first = rows[0];
    if (first && this.#lexicalIndexes?.missed(query.scopeId, query.revision, Number(first.total_length))) {
      void this.#readLexicalIndex(query.scopeId, query.revision);
    }
    const queryTermCount =
      first?.query_terms ??
      (
        await sql<{ n: number }>`
          SELECT count(DISTINCT t.lexeme)::int AS n FROM unnest(${this.#analyzed(query.query)}) t`.execute(
          this.#db,
        )
      ).rows[0]!.n;
    return {
      queryTermCount,
      candidates: rows.map((row, index) => ({
        entryId: row.entry_id,
        entryVersionId: row.entry_version_id,
        rank: index + 1,
        score: Number(row.score),
        matchedTerms: row.matched_terms,
      })),
    };
  }

  /**
   * Reads the scope's lexical index at the revision into memory, in one statement (one snapshot): the
   * BM25 figures as the lexical statement takes them and the purge mark, every projection visible at
   * the revision numbered in projection order, and per lexeme its idf (computed by the database, whose
   * `ln` the statement uses: JavaScript's Math.log may differ in the last bit) and the numbers and term
   * frequencies of the visible projections that hold it, as bytes (`int4send`, `float8send`): exact, and
   * decoded without parsing text (text arrays of half a million numbers held the event loop 150-200 ms).
   * Runs beside the searches; a failure only leaves the statement answering.
   */
  async #readLexicalIndex(scopeId: string, revision: number): Promise<void> {
    const cache = this.#lexicalIndexes!;
    try {
      // Without table statistics (a new scope, PGlite) the planner would join the scope's postings to
      // its projections in a nested loop (minutes at 10,000 entries); hash joins and hash aggregates
      // are forced for this one read, with the memory they need.
      const rows = await this.#db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_nestloop = off`.execute(trx);
        await sql`SET LOCAL enable_sort = off`.execute(trx);
        await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
        return (
          await sql<LexicalIndexRow>`
        WITH ${bm25Statistics(scopeId, revision)}, docs AS MATERIALIZED (
          SELECT p.projection_id, (row_number() OVER (ORDER BY p.projection_id) - 1)::int AS ord,
            p.entry_version_id, v.entry_id, v.state = 'active' AS active, p.lexical_length
          FROM pc_lexical_projections p JOIN pc_entry_versions v ON v.entry_version_id = p.entry_version_id
          WHERE p.scope_id = ${scopeId} AND ${projectionVisibleAt(revision)}
        )
        SELECT 'stats' AS kind, NULL::int AS ord, NULL::uuid AS entry_version_id, NULL::uuid AS entry_id,
          NULL::boolean AS active, s.n AS value, s.avgdl AS average_length, NULL::text AS lexeme,
          NULL::bytea AS ords, NULL::bytea AS tfs,
          ${purgeMarkOf(scopeId)} AS purged
        FROM stats s
        UNION ALL
        SELECT 'doc', d.ord, d.entry_version_id, d.entry_id, d.active, d.lexical_length, NULL, NULL, NULL, NULL, NULL
        FROM docs d
        UNION ALL
        SELECT 'lexeme', NULL, NULL, NULL, NULL,
          ${bm25Idf(sql`s.n`, sql`count(*)::float8`)}, NULL, l.lexeme,
          string_agg(int4send(d.ord), ''::bytea), string_agg(float8send(l.tf), ''::bytea), NULL
        FROM pc_lexical_postings l JOIN docs d ON d.projection_id = l.projection_id CROSS JOIN stats s
        WHERE l.scope_id = ${scopeId}
        GROUP BY l.lexeme, s.n`.execute(trx)
        ).rows;
      });
      if (this.#closed) return;
      const index = await lexicalIndexOf(scopeId, revision, rows);
      if (this.#closed) return;
      cache.hold(index);
    } catch {
      cache.readFailed(scopeId);
    }
  }

  explainLexicalMatches(query: LexicalMatchQuery): Promise<LexicalMatchReport> {
    return guardStoreErrors(async () => {
      // One read, three kinds of rows: the query's lexemes (no version), the asked versions whose
      // projection is visible at the revision (no lexeme), and that projection's postings of the query's
      // lexemes, each marked by whether the version's own tsvector holds it: the weight-1 part the
      // projection was built from (insertProjections). In query order: by a lexeme's first position.
      const { rows } = await sql<{ entry_version_id: string | null; lexeme: string | null; own: boolean }>`
        WITH q AS MATERIALIZED (
          SELECT t.lexeme, t.positions[1] AS first FROM unnest(${this.#analyzed(query.query)}) t
        ), asked AS MATERIALIZED (
          SELECT p.projection_id, p.entry_version_id FROM pc_lexical_projections p
          WHERE p.entry_version_id = ANY(${[...query.entryVersionIds]}::uuid[]) AND p.scope_id = ${query.scopeId}
            AND ${projectionVisibleAt(query.revision)}
        )
        SELECT found.entry_version_id, found.lexeme, found.own FROM (
          SELECT NULL::uuid AS entry_version_id, q.lexeme, q.first, false AS own FROM q
          UNION ALL
          SELECT a.entry_version_id, NULL, NULL, false FROM asked a
          UNION ALL
          SELECT a.entry_version_id, l.lexeme, q.first, l.lexeme = ANY(tsvector_to_array(v.search_vector))
          FROM asked a
          JOIN pc_lexical_postings l ON l.scope_id = ${query.scopeId} AND l.projection_id = a.projection_id
          JOIN q ON q.lexeme = l.lexeme
          JOIN pc_entry_versions v ON v.entry_version_id = a.entry_version_id
        ) found
        ORDER BY found.first NULLS FIRST, found.lexeme`.execute(this.#db);
      const queryTerms: string[] = [];
      const matches = new Map<string, LexicalMatchSources>();
      for (const row of rows) {
        if (row.entry_version_id === null) {
          queryTerms.push(row.lexeme!);
          continue;
        }
        let sources = matches.get(row.entry_version_id);
        if (!sources) {
          sources = { ownTerms: [], contextTerms: [] };
          matches.set(row.entry_version_id, sources);
        }
        if (row.lexeme !== null) (row.own ? sources.ownTerms : sources.contextTerms).push(row.lexeme);
      }
      return { queryTerms, matches };
    });
  }

  vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    return guardStoreErrors(async () => {
      const exact =
        !this.#indexedProfiles.has(query.profileId) ||
        (await this.#liveEntries(query.scopeId, query.revision)) <= this.#exactVectorScanLimit;
      if (!exact) return toChannelCandidates((await hnswVectorSearch(query).execute(this.#db)).rows);
      const cache = query.limit > 0 && isSparseQuery(query.vector) ? this.#vectorIndexes : undefined;
      const held = cache?.lookup(query.scopeId, query.profileId, query.revision);
      if (held) {
        const answer = await this.#vectorSearchInMemory(held, query);
        if (answer) return answer;
      }
      const rows = await executePrepared(this.#db, exactVectorSearch(query));
      const active = this.#knownActiveEntries(query.scopeId, query.revision) ?? 0;
      if (cache?.missed(query.scopeId, query.profileId, query.revision, active)) {
        void this.#readVectorIndex(query.scopeId, query.profileId, query.revision);
      }
      return toChannelCandidates(rows);
    });
  }

  /**
   * The exact scan's answer with the vector index in memory choosing what is scored: the versions that
   * may be among the best (vectorCandidates) are scored by the database with the exact scan's expression
   * and order, in one statement that also reads the scope's purge mark. Undefined (the exact scan
   * answers) when too many may be, or when a purge happened since the index was read (it is dropped).
   */
  async #vectorSearchInMemory(
    index: ScopeVectorIndex,
    query: VectorSearchQuery,
  ): Promise<ChannelCandidate[] | undefined> {
    const candidates = vectorCandidates(index, query.vector, query.limit, maxVectorCandidates(query.limit));
    if (!candidates) return undefined;
    const rows = await executePrepared(
      this.#db,
      sql<{
        entry_id: string | null;
        entry_version_id: string | null;
        cosine: number;
        purged: number | null;
      }>`
      WITH mark AS MATERIALIZED (
        SELECT ${purgeMarkOf(query.scopeId)} AS purged
      )
      SELECT m.purged, r.entry_id, r.entry_version_id, r.cosine FROM mark m LEFT JOIN LATERAL (
        SELECT v.entry_id, v.entry_version_id,
          ${sparseCosineTo(query.vector)} AS cosine
        FROM pc_embeddings e JOIN pc_entry_versions v ON v.entry_version_id = e.entry_version_id
        WHERE e.entry_version_id = ANY(${quotedArrayLiteral(candidates)}::uuid[]) AND e.profile_id = ${query.profileId}
        ORDER BY 3 DESC, v.entry_id, v.entry_version_id
        LIMIT ${query.limit}
      ) r ON true`,
    );
    if ((rows[0]?.purged ?? null) !== index.purgeMark) {
      this.#vectorIndexes?.drop(query.scopeId);
      return undefined;
    }
    this.#vectorIndexes!.answered();
    return toChannelCandidates(
      rows.flatMap(({ entry_id, entry_version_id, cosine }) =>
        entry_id === null || entry_version_id === null ? [] : [{ entry_id, entry_version_id, cosine }],
      ),
    );
  }

  /**
   * Reads the scope's vectors of the profile at the revision into memory, in one statement (one
   * snapshot): every version live and active at the revision with its vector as pgvector's binary form
   * (`sparsevec_send`: exact float4 values, decoded without parsing text), and the purge mark. Not held
   * when a version lacks a vector or the vectors are dense (vectorIndexOf). Runs beside the searches; a
   * failure only leaves the exact scan answering.
   */
  async #readVectorIndex(scopeId: string, profileId: string, revision: number): Promise<void> {
    const cache = this.#vectorIndexes!;
    try {
      const { rows } = await sql<VectorIndexRow>`
        WITH mark AS MATERIALIZED (
          SELECT ${purgeMarkOf(scopeId)} AS purged
        )
        SELECT v.entry_version_id, sparsevec_send(e.embedding) AS vector, m.purged
        FROM pc_entry_versions v
        LEFT JOIN pc_embeddings e ON e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId}
        CROSS JOIN mark m
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'`.execute(this.#db);
      if (this.#closed) return;
      const index = await vectorIndexOf(scopeId, profileId, revision, rows);
      if (this.#closed) return;
      if (index) cache.hold(index);
      else cache.readFailed(scopeId, profileId);
    } catch {
      cache.readFailed(scopeId, profileId);
    }
  }

  /** Active entries at the revision: remembered from the statistics read, else counted up to the limit. */
  async #liveEntries(scopeId: string, revision: number): Promise<number> {
    const known = this.#knownActiveEntries(scopeId, revision);
    if (known !== undefined) return known;
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM pc_entry_versions v WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
        LIMIT ${this.#exactVectorScanLimit + 1}
      ) AS bounded`.execute(this.#db);
    return rows[0]?.n ?? 0;
  }

  /** Active entries at the revision, if a statistics read told them (no read here). */
  #knownActiveEntries(scopeId: string, revision: number): number | undefined {
    return this.#activeEntries.get(`${revision}:${scopeId}`);
  }

  #rememberActiveEntries(scopeId: string, revision: number, activeEntries: number) {
    if (this.#activeEntries.size >= 4_096) this.#activeEntries.clear();
    this.#activeEntries.set(`${revision}:${scopeId}`, activeEntries);
  }

  searchHead(scopeId: string, profileId: string): Promise<SearchHead | undefined> {
    return guardStoreErrors(async () => {
      // The head row and, when they describe the head, its statistics: one primary-key read each.
      const { rows } = await sql<{
        artifact_id: string;
        head_revision: number;
        missing: string | number | null;
        active: string | number | null;
      }>`
        SELECT m.artifact_id, m.head_revision, vs.missing, st.active_entries AS active
        FROM pc_memories m
        LEFT JOIN pc_scope_vector_statistics vs
          ON vs.scope_id = m.scope_id AND vs.profile_id = ${profileId} AND vs.revision = m.head_revision
        LEFT JOIN pc_scope_statistics st ON st.scope_id = m.scope_id AND st.revision = m.head_revision
        WHERE m.scope_id = ${scopeId}`.execute(this.#db);
      const row = rows[0];
      if (!row) return undefined;
      const memory = { artifactId: row.artifact_id, scopeId, revision: row.head_revision };
      if (row.active !== null) this.#rememberActiveEntries(scopeId, row.head_revision, Number(row.active));
      if (row.missing === null) {
        return { memory, vectorIndex: await this.vectorIndexState(scopeId, row.head_revision, profileId) };
      }
      const missing = Number(row.missing);
      return { memory, vectorIndex: { profileId, missing, complete: missing === 0 } };
    });
  }

  vectorIndexState(scopeId: string, revision: number, profileId: string): Promise<VectorIndexState> {
    return guardStoreErrors(async () => {
      // One primary-key read when the scope's statistics describe this revision; counted otherwise.
      const { rows } = await sql<{ missing: string | number; active: string | number | null }>`
        WITH kept AS MATERIALIZED (
          SELECT s.missing, (SELECT t.active_entries FROM pc_scope_statistics t
                             WHERE t.scope_id = s.scope_id AND t.revision = s.revision) AS active
          FROM pc_scope_vector_statistics s
          WHERE s.scope_id = ${scopeId} AND s.profile_id = ${profileId} AND s.revision = ${revision}
        )
        SELECT k.missing, k.active FROM kept k
        UNION ALL
        SELECT count(*), NULL FROM pc_entry_versions v
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
          AND NOT EXISTS (SELECT 1 FROM pc_embeddings e WHERE e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})
        HAVING NOT EXISTS (SELECT 1 FROM kept)`.execute(this.#db);
      const row = rows[0];
      if (row?.active !== null && row?.active !== undefined) {
        this.#rememberActiveEntries(scopeId, revision, Number(row.active));
      }
      const missing = Number(row?.missing ?? 0);
      return { profileId, missing, complete: missing === 0 };
    });
  }

  versionsMissingEmbedding(scopeId: string, profileId: string, limit: number) {
    return guardStoreErrors(async () => {
      const { rows } = await sql<EntryVersionRow>`
        SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
        WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'
          AND NOT EXISTS (SELECT 1 FROM pc_embeddings e WHERE e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})
        ORDER BY v.revision, v.entry_version_id LIMIT ${limit}`.execute(this.#db);
      return rows.map(toEntryVersion);
    });
  }

  putEmbeddings(scopeId: string, profileId: string, embeddings: readonly EmbeddingToStore[]) {
    return guardStoreErrors(async () => {
      if (embeddings.length === 0) return;
      // Under the head row lock, so the completeness statistics move with the vectors.
      await this.#db.transaction().execute(async (trx) => {
        const memory = await trx
          .selectFrom('pc_memories')
          .select('head_revision')
          .where('scope_id', '=', scopeId)
          .forUpdate()
          .executeTakeFirst();
        const inserted = await trx
          .insertInto('pc_embeddings')
          .values(
            embeddings.map((e) => ({
              entry_version_id: e.entryVersionId,
              profile_id: profileId,
              scope_id: scopeId,
              embedding: toSparseVectorLiteral(e.vector),
            })),
          )
          .onConflict((conflict) => conflict.columns(['entry_version_id', 'profile_id']).doNothing())
          .returning('entry_version_id')
          .execute();
        if (memory) {
          await subtractEmbedded(
            trx,
            scopeId,
            profileId,
            memory.head_revision,
            inserted.map((row) => row.entry_version_id),
          );
          await this.#indexWhenOutgrown(trx, scopeId, memory.head_revision);
        }
      });
    });
  }

  prepareEmbeddingProfile(profile: EmbeddingProfile) {
    return guardStoreErrors(async () => {
      if (!Number.isInteger(profile.dimension) || profile.dimension < 1) {
        throw new TypeError(`embedding profile ${profile.id} has an invalid dimension ${profile.dimension}`);
      }
      // One read for a profile met before (every open but the first): a read-only command writes nothing.
      // Without its HNSW index, the same statement tells whether a scope has outgrown the exact scan: the
      // index is built only then (or with a limit of 0). PostgreSQL counts only when the index is missing.
      const indexable = profile.dimension <= HNSW_MAX_DIMENSION;
      const { rows: known } = await sql<{ registered: boolean; indexed: boolean; outgrown: boolean | null }>`
        SELECT EXISTS (SELECT 1 FROM pc_embedding_profiles WHERE profile_id = ${profile.id}) AS registered,
          to_regclass(${profileIndexName(profile)}) IS NOT NULL AS indexed,
          CASE WHEN to_regclass(${profileIndexName(profile)}) IS NOT NULL AND ${indexable} THEN NULL
            ELSE EXISTS (
              SELECT 1 FROM pc_embeddings e WHERE e.profile_id = ${profile.id}
              GROUP BY e.scope_id HAVING count(*) > ${this.#exactVectorScanLimit}
            ) END AS outgrown`.execute(this.#db);
      if (!known[0]?.registered) {
        await this.#db
          .insertInto('pc_embedding_profiles')
          .values({
            profile_id: profile.id,
            dimension: profile.dimension,
            normalization: profile.normalization,
            min_cosine: profile.minCosine,
          })
          .onConflict((conflict) => conflict.column('profile_id').doNothing())
          .execute();
      }
      this.#profiles.set(profile.id, profile);
      if (known[0]?.indexed && indexable) {
        this.#indexedProfiles.add(profile.id);
        return;
      }
      if (this.#exactVectorScanLimit === 0 || known[0]?.outgrown)
        await this.#createProfileIndex(this.#db, profile);
    });
  }

  /** Builds the HNSW index of the prepared profiles once the scope's active entries exceed the exact-scan limit. */
  async #indexWhenOutgrown(db: Kysely<Database>, scopeId: string, revision: number) {
    const pending = [...this.#profiles.values()].filter((p) => !this.#indexedProfiles.has(p.id));
    if (pending.length === 0) return;
    const { rows } = await sql<{ active: string | number }>`
      SELECT s.active_entries AS active FROM pc_scope_statistics s
      WHERE s.scope_id = ${scopeId} AND s.revision = ${revision}`.execute(db);
    if (rows[0] === undefined || Number(rows[0].active) <= this.#exactVectorScanLimit) return;
    for (const profile of pending) await this.#createProfileIndex(db, profile);
  }

  async #createProfileIndex(db: Kysely<Database>, profile: EmbeddingProfile) {
    if (await createProfileIndex(db, profile)) this.#indexedProfiles.add(profile.id);
  }

  listScopes() {
    return guardStoreErrors(async () =>
      (await this.#db.selectFrom('pc_memories').select('scope_id').orderBy('scope_id').execute()).map(
        (r) => r.scope_id,
      ),
    );
  }

  async close() {
    this.#closed = true;
    this.#lexicalIndexes?.clear();
    this.#vectorIndexes?.clear();
    await this.#db.destroy();
    await this.#onClose?.();
  }
}

/**
 * The vector channel of a scope that outgrew the exact scan: the nearest vectors by the same expression
 * as the profile's HNSW index, whose version is live and active at the revision, then their full rows.
 * The plan must not depend on statistics, which a large scope may lack: the scope is compared as an
 * expression (`scope_id || ''`) so the (scope, profile) b-tree cannot offer the planner a scan of the
 * scope plus a sort, the filter runs inside the walk, and pgvector's iterative scan (`strict_order`)
 * keeps walking while the scope and visibility filters reject rows. Exported for the plan test.
 */
export function hnswVectorSearch(query: VectorSearchQuery) {
  const literal = toVectorLiteral(query.vector);
  const dimension = sql.raw(String(query.vector.length));
  const distance = sql`e.embedding::vector(${dimension}) <=> ${literal}::vector(${dimension})`;
  return sql<CandidateRow & { cosine: number }>`
    WITH nearest AS MATERIALIZED (
      SELECT e.entry_version_id, ${distance} AS distance
      FROM pc_embeddings e
      WHERE e.profile_id = ${query.profileId} AND (e.scope_id || '') = ${query.scopeId}
        AND EXISTS (
          SELECT 1 FROM pc_entry_versions v
          WHERE v.entry_version_id = e.entry_version_id AND ${visibleAt(query.revision)} AND v.state = 'active')
      ORDER BY ${distance}
      LIMIT ${query.limit}
    )
    SELECT v.entry_id, v.entry_version_id, ${cosineOf(sql`n.distance`)} AS cosine
    FROM nearest n JOIN pc_entry_versions v ON v.entry_version_id = n.entry_version_id
    ORDER BY ${cosineOf(sql`n.distance`)} DESC, v.entry_id, v.entry_version_id`;
}

/**
 * The exact vector channel: every vector of the scope and profile scored and sorted (vectors are stored
 * inline, migration 0004), then walked in score order, keeping those whose version is live and active
 * at the revision until `limit` (and the rows tied with the last) are found; their identities are the
 * answer. The lateral probe makes the walk a nested loop that keeps the score order.
 */
function exactVectorSearch(query: VectorSearchQuery) {
  return sql<CandidateRow & { cosine: number }>`
    WITH top AS MATERIALIZED (
      SELECT r.entry_version_id, r.cosine
      FROM (
        SELECT e.entry_version_id, ${sparseCosineTo(query.vector)} AS cosine
        FROM pc_embeddings e WHERE e.scope_id = ${query.scopeId} AND e.profile_id = ${query.profileId}
        ORDER BY 2 DESC
      ) r
      CROSS JOIN LATERAL (
        SELECT 1 FROM pc_entry_versions v
        WHERE v.entry_version_id = r.entry_version_id AND ${visibleAt(query.revision)} AND v.state = 'active'
        LIMIT 1
      ) live
      ORDER BY r.cosine DESC
      FETCH FIRST (${query.limit}::bigint) ROWS WITH TIES
    )
    SELECT v.entry_id, v.entry_version_id, t.cosine
    FROM top t JOIN pc_entry_versions v ON v.entry_version_id = t.entry_version_id
    ORDER BY t.cosine DESC, v.entry_id, v.entry_version_id
    LIMIT ${query.limit}`;
}

/** The most versions the vector index in memory may hand the database to score. */
function maxVectorCandidates(limit: number): number {
  return Math.max(4 * limit, limit + 64);
}

function toChannelCandidates(rows: readonly (CandidateRow & { cosine: number })[]): ChannelCandidate[] {
  return rows.map((row, index) => ({
    entryId: row.entry_id,
    entryVersionId: row.entry_version_id,
    rank: index + 1,
    score: Number(row.cosine),
  }));
}

/** What a channel returns of a candidate: its identity, never its content (see `entryVersions`). */
interface CandidateRow {
  entry_id: string;
  entry_version_id: string;
}

/**
 * BM25's idf of a lexeme found in `df` of `n` projections. The lexical statement and the read of the
 * in-memory index both compute it with this one expression, so the index's scores equal the
 * statement's to the bit (RFC 0002, "The lexical index in memory").
 */
function bm25Idf(n: RawBuilder<unknown>, df: RawBuilder<unknown>) {
  return sql`ln(1 + (${n} - ${df} + 0.5) / (${df} + 0.5))`;
}

/**
 * The `kept` and `stats` steps of a statement that needs BM25's N and average length at a revision:
 * the scope's statistics row when it describes that revision, else counted from the projections
 * visible at it. The lexical statement and the in-memory index read them the same way.
 */
function bm25Statistics(scopeId: string, revision: number) {
  return sql`kept AS MATERIALIZED (
    SELECT s.projections::float8 AS n, s.projection_length::float8 AS total FROM pc_scope_statistics s
    WHERE s.scope_id = ${scopeId} AND s.revision = ${revision}
  ), stats AS MATERIALIZED (
    SELECT k.n, CASE WHEN k.n > 0 THEN k.total / k.n ELSE 0 END AS avgdl FROM kept k
    UNION ALL
    SELECT count(*)::float8, coalesce(avg(p.lexical_length), 0)::float8
    FROM pc_lexical_projections p
    WHERE p.scope_id = ${scopeId} AND ${projectionVisibleAt(revision)}
    HAVING NOT EXISTS (SELECT 1 FROM kept)
  )`;
}

/** `p` (a lexical projection) is the one the index used at `revision`. */
function projectionVisibleAt(revision: number) {
  return sql`p.revision <= ${revision} AND (p.superseded_revision IS NULL OR p.superseded_revision > ${revision})`;
}

/**
 * Inserts projections and their postings: an entry's own lexemes (weight 1) plus each neighbour's,
 * with term frequencies scaled by the neighbour's weight and summed per lexeme. One statement: the
 * (projection, source, weight) parts are listed once, each source version is read once by primary
 * key, and both the projection lengths and the postings are aggregated from that one pass (hash
 * aggregates, linear in the batch).
 */
async function insertProjections(
  db: Kysely<Database>,
  scopeId: string,
  policyId: string,
  projections: readonly (PlannedProjection & { revision: number })[],
) {
  const { targets, sources, weights } = projectionParts(
    projections.map((p) => ({ ...p, target: p.entryVersionId })),
  );
  await sql`
    WITH parts AS MATERIALIZED (
      SELECT pt.target, pt.weight, v.lexical_length, v.search_vector
      FROM unnest(${targets}::uuid[], ${sources}::uuid[], ${weights}::float8[]) AS pt(target, source, weight)
      JOIN pc_entry_versions v ON v.entry_version_id = pt.source
    ), sized AS (
      SELECT pt.target, sum(pt.weight * pt.lexical_length) AS len FROM parts pt GROUP BY pt.target
    ), inserted AS (
      INSERT INTO pc_lexical_projections (scope_id, entry_version_id, revision, policy_id, context, lexical_length)
      SELECT ${scopeId}, s.entry_version_id, s.revision, ${policyId}, s.context, coalesce(z.len, 0)
      FROM unnest(${projections.map((p) => p.entryVersionId)}::uuid[], ${projections.map((p) => p.revision)}::int[],
        ${projections.map((p) => JSON.stringify(p.context))}::jsonb[]) AS s(entry_version_id, revision, context)
      LEFT JOIN sized z ON z.target = s.entry_version_id
      RETURNING projection_id, entry_version_id
    )
    INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
    SELECT ${scopeId}, t.lexeme, i.projection_id, sum(pt.weight * coalesce(array_length(t.positions, 1), 1))
    FROM parts pt
    JOIN inserted i ON i.entry_version_id = pt.target
    CROSS JOIN LATERAL unnest(pt.search_vector) t
    GROUP BY i.projection_id, t.lexeme`.execute(db);
}

function parseJsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** pgvector indexes `vector` columns of at most this many dimensions. */
const HNSW_MAX_DIMENSION = 2_000;

function profileIndexName(profile: EmbeddingProfile) {
  return `pc_embeddings_hnsw_${createHash('sha256').update(profile.id).digest('hex').slice(0, 24)}`;
}

/**
 * An HNSW index over one profile's vectors, cast to the profile's dimension (pgvector needs a fixed
 * one). Profiles above 2,000 dimensions get no index: their scopes are always scanned exactly.
 * Returns whether the index exists.
 */
async function createProfileIndex(db: Kysely<Database>, profile: EmbeddingProfile): Promise<boolean> {
  if (profile.dimension > HNSW_MAX_DIMENSION) return false;
  const literal = profile.id.replaceAll("'", "''");
  // Under the migration lock, in a transaction: two processes creating the same index at once would
  // otherwise collide in the catalog even with IF NOT EXISTS (RFC 0005, "More than one server").
  const create = async (trx: Kysely<Database>) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
    await sql
      .raw(
        `CREATE INDEX IF NOT EXISTS ${profileIndexName(profile)} ON pc_embeddings USING hnsw ((embedding::vector(${profile.dimension})) vector_cosine_ops) WHERE profile_id = '${literal}'`,
      )
      .execute(trx);
  };
  if (db.isTransaction) await create(db);
  else await db.transaction().execute(create);
  return true;
}

/**
 * The cosine of each stored vector (`e.embedding`) to `vector`, as the exact scan computes it. The vector
 * index in memory relies on the database scoring its candidates with this same expression.
 */
function sparseCosineTo(vector: readonly number[]) {
  return cosineOf(sql`e.embedding <=> ${toSparseVectorLiteral(vector)}::sparsevec`);
}

/**
 * The scope's purge mark: its newest purge revision (NULL: none). A purge rewrites past revisions, so
 * an index held in memory keeps the mark it was read with, and every use reads it again.
 */
function purgeMarkOf(scopeId: string) {
  return sql`(SELECT max(pe.revision) FROM pc_purged_entries pe WHERE pe.scope_id = ${scopeId})`;
}

/** 1 - cosine distance; a zero vector has no direction (NaN), which scores 0 instead of sorting first. */
function cosineOf(distance: ReturnType<typeof sql>) {
  return sql`coalesce(nullif(1 - (${distance}), 'NaN'::float8), 0)`;
}
