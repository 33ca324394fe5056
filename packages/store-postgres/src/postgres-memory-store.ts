import { createHash } from 'node:crypto';
import {
  type ChannelCandidate,
  type EmbeddingProfile,
  type EmbeddingToStore,
  type EntryVersion,
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
  planProjections,
  type RevisionChange,
  RevisionConflictError,
  type RevisionOperation,
  type VectorIndexState,
  type VectorSearchQuery,
} from '@powercontext/memory-core';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './database.js';
import {
  ENTRY_VERSION_COLUMNS,
  type EntryVersionRow,
  liveAt,
  toEntryVersion,
  parseOrder as toEntryVersionOrder,
  visibleAt,
} from './entry-version-row.js';
import { guardStoreErrors } from './store-errors.js';
import { quotedArrayLiteral, toVectorLiteral } from './vector-literal.js';

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
}

/** The MemoryStore port on PostgreSQL-compatible databases (PostgreSQL through `pg`, or PGlite). */
export class PostgresMemoryStore implements MemoryStore {
  readonly #db: Kysely<Database>;
  readonly #config: string;
  readonly #onClose: (() => Promise<void> | void) | undefined;
  readonly #exactVectorScanLimit: number;

  constructor(options: PostgresMemoryStoreOptions) {
    this.#db = options.db;
    this.#config = options.textSearchConfig;
    this.#onClose = options.onClose;
    this.#exactVectorScanLimit = options.exactVectorScanLimit ?? 20_000;
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
        return work({
          findActiveByContentHash: (hashes) => this.#findActiveByHash(trx, scopeId, expectedRevision, hashes),
          currentVersion: async (entryId) =>
            (await this.#entryAt(trx, scopeId, entryId, expectedRevision)) ?? undefined,
          appendRevision: async (operation, versions, projection) => {
            if (appended) throw new Error('appendRevision may be called once per write');
            appended = true;
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
        });
      }),
    );
  }

  async #appendRevision(
    trx: Transaction<Database>,
    scopeId: string,
    artifactId: string | undefined,
    expectedRevision: number,
    operation: RevisionOperation,
    versions: readonly NewEntryVersion[],
    projection: LexicalProjectionPolicy,
  ): Promise<{ memory: MemoryRef; versions: EntryVersion[] }> {
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
        SELECT CASE WHEN r.state = 'active' THEN to_tsvector(${this.#config}::regconfig, r.text) ELSE ''::tsvector END AS search_vector
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
    if (planned.length > 0) {
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
    const embeddings = versions.flatMap((v) =>
      v.embedding && v.state === 'active'
        ? [{ entryVersionId: v.entryVersionId, profileId: v.embedding.profileId, vector: v.embedding.vector }]
        : [],
    );
    if (embeddings.length > 0) await this.#insertEmbeddings(trx, scopeId, embeddings);

    const byId = new Map(inserted.rows.map((row) => [row.entry_version_id, toEntryVersion(row)]));
    return {
      memory: { artifactId: artifact, scopeId, revision },
      versions: versions.map((v) => byId.get(v.entryVersionId)!),
    };
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
        ${quotedArrayLiteral(embeddings.map((e) => toVectorLiteral(e.vector)))}::vector[]) AS e(entry_version_id, profile_id, embedding)
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
        operation: row.operation as RevisionOperation,
        version: toEntryVersion(row),
      }));
    });
  }

  lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    return guardStoreErrors(async () => {
      const { k1, b, delta } = query.bm25;
      // BM25 over the postings of live entries: idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
      // tf part = tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)) + delta, summed over matched query lexemes.
      // The plan is pinned with MATERIALIZED steps so it does not depend on table statistics (a new
      // scope has none): postings are read through their (scope, lexeme) key, matching versions are
      // joined by primary key, and the scope's size is read once. The cost follows the matches.
      const { rows } = await sql<
        EntryVersionRow & { score: number; matched_terms: number; query_terms: number }
      >`
        WITH q AS MATERIALIZED (
          SELECT coalesce(array_agg(DISTINCT t.lexeme), '{}') AS lexemes
          FROM unnest(to_tsvector(${this.#config}::regconfig, ${query.query})) t
        ), stats AS MATERIALIZED (
          SELECT count(*)::float8 AS n, coalesce(avg(p.lexical_length), 0)::float8 AS avgdl
          FROM pc_lexical_projections p
          WHERE p.scope_id = ${query.scopeId} AND ${projectionVisibleAt(query.revision)}
        ), postings AS MATERIALIZED (
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
            sum(ln(1 + (s.n - m.df + 0.5) / (m.df + 0.5))
              * (m.tf * (${k1}::float8 + 1) / (m.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * m.len / greatest(s.avgdl, 1e-9))) + ${delta}::float8)
            ) AS score,
            count(*)::int AS matched_terms
          FROM matches m CROSS JOIN stats s
          GROUP BY m.entry_version_id
        )
        SELECT ${ENTRY_VERSION_COLUMNS}, scored.score, scored.matched_terms,
          cardinality((SELECT lexemes FROM q)) AS query_terms
        FROM scored JOIN pc_entry_versions v USING (entry_version_id)
        WHERE v.state = 'active'
        ORDER BY scored.score DESC, v.entry_id, v.entry_version_id
        LIMIT ${query.limit}`.execute(this.#db);
      const queryTermCount =
        rows[0]?.query_terms ??
        (
          await sql<{ n: number }>`
            SELECT count(DISTINCT t.lexeme)::int AS n FROM unnest(to_tsvector(${this.#config}::regconfig, ${query.query})) t`.execute(
            this.#db,
          )
        ).rows[0]!.n;
      return {
        queryTermCount,
        candidates: rows.map((row, index) => ({
          version: toEntryVersion(row),
          rank: index + 1,
          score: Number(row.score),
          matchedTerms: row.matched_terms,
        })),
      };
    });
  }

  vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    return guardStoreErrors(async () => {
      const literal = toVectorLiteral(query.vector);
      const dimension = sql.raw(String(query.vector.length));
      const { rows: sized } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (
          SELECT 1 FROM pc_embeddings e WHERE e.scope_id = ${query.scopeId} AND e.profile_id = ${query.profileId}
          LIMIT ${this.#exactVectorScanLimit + 1}
        ) AS bounded`.execute(this.#db);
      // Small scopes are scanned exactly (exact recall, and faster than a filtered HNSW walk); large ones
      // order by the same expression as the profile's HNSW index, so the planner can use it.
      const exact = (sized[0]?.n ?? 0) <= this.#exactVectorScanLimit;
      const { rows } = exact
        ? await sql<EntryVersionRow & { cosine: number }>`
            WITH scoped AS MATERIALIZED (
              SELECT e.entry_version_id, ${cosineOf(sql`e.embedding <=> ${literal}::vector`)} AS cosine
              FROM pc_embeddings e WHERE e.scope_id = ${query.scopeId} AND e.profile_id = ${query.profileId}
            )
            SELECT ${ENTRY_VERSION_COLUMNS}, s.cosine
            FROM scoped s JOIN pc_entry_versions v ON v.entry_version_id = s.entry_version_id
            WHERE ${visibleAt(query.revision)} AND v.state = 'active'
            ORDER BY s.cosine DESC, v.entry_id, v.entry_version_id
            LIMIT ${query.limit}`.execute(this.#db)
        : await sql<EntryVersionRow & { cosine: number }>`
            SELECT ${ENTRY_VERSION_COLUMNS}, ${cosineOf(sql`e.embedding::vector(${dimension}) <=> ${literal}::vector(${dimension})`)} AS cosine
            FROM pc_embeddings e JOIN pc_entry_versions v USING (entry_version_id)
            WHERE e.scope_id = ${query.scopeId} AND e.profile_id = ${query.profileId}
              AND ${liveAt(query.scopeId, query.revision)} AND v.state = 'active'
            ORDER BY e.embedding::vector(${dimension}) <=> ${literal}::vector(${dimension}), v.entry_id, v.entry_version_id
            LIMIT ${query.limit}`.execute(this.#db);
      return rows.map((row, index) => ({
        version: toEntryVersion(row),
        rank: index + 1,
        score: Number(row.cosine),
      }));
    });
  }

  vectorIndexState(scopeId: string, revision: number, profileId: string): Promise<VectorIndexState> {
    return guardStoreErrors(async () => {
      const { rows } = await sql<{ missing: number }>`
        SELECT count(*)::int AS missing FROM pc_entry_versions v
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
          AND NOT EXISTS (SELECT 1 FROM pc_embeddings e WHERE e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})`.execute(
        this.#db,
      );
      const missing = rows[0]?.missing ?? 0;
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
      await this.#insertEmbeddings(
        this.#db,
        scopeId,
        embeddings.map((e) => ({ ...e, profileId })),
      );
    });
  }

  prepareEmbeddingProfile(profile: EmbeddingProfile) {
    return guardStoreErrors(async () => {
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
      await createProfileIndex(this.#db, profile);
    });
  }

  listScopes() {
    return guardStoreErrors(async () =>
      (await this.#db.selectFrom('pc_memories').select('scope_id').orderBy('scope_id').execute()).map(
        (r) => r.scope_id,
      ),
    );
  }

  async close() {
    await this.#db.destroy();
    await this.#onClose?.();
  }
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
  const targets: string[] = [];
  const sources: string[] = [];
  const weights: number[] = [];
  for (const p of projections) {
    targets.push(p.entryVersionId);
    sources.push(p.entryVersionId);
    weights.push(1);
    for (const neighbour of p.context) {
      targets.push(p.entryVersionId);
      sources.push(neighbour.entryVersionId);
      weights.push(neighbour.weight);
    }
  }
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

/**
 * An HNSW index over one profile's vectors, cast to the profile's dimension (pgvector needs a fixed
 * one). Profiles above 2,000 dimensions get no index: their scopes are always scanned exactly.
 */
async function createProfileIndex(db: Kysely<Database>, profile: EmbeddingProfile) {
  if (!Number.isInteger(profile.dimension) || profile.dimension < 1) {
    throw new TypeError(`embedding profile ${profile.id} has an invalid dimension ${profile.dimension}`);
  }
  if (profile.dimension > HNSW_MAX_DIMENSION) return;
  const name = `pc_embeddings_hnsw_${createHash('sha256').update(profile.id).digest('hex').slice(0, 24)}`;
  const literal = profile.id.replaceAll("'", "''");
  await sql
    .raw(
      `CREATE INDEX IF NOT EXISTS ${name} ON pc_embeddings USING hnsw ((embedding::vector(${profile.dimension})) vector_cosine_ops) WHERE profile_id = '${literal}'`,
    )
    .execute(db);
}

/** 1 - cosine distance; a zero vector has no direction (NaN), which scores 0 instead of sorting first. */
function cosineOf(distance: ReturnType<typeof sql>) {
  return sql`coalesce(nullif(1 - (${distance}), 'NaN'::float8), 0)`;
}
