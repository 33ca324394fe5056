import { createHash } from 'node:crypto';
import type { EmbeddingProfile, EmbeddingToStore } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { lockHead } from './entry-reads.js';
import { ENTRY_VERSION_COLUMNS, type EntryVersionRow, toEntryVersion } from './entry-version-row.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';
import { subtractEmbedded } from './search-statistics.js';
import { quotedArrayLiteral, toSparseVectorLiteral } from './vector-literal.js';

/**
 * The embedding profiles this store has prepared, their vectors and their HNSW indexes. A prepared
 * profile's completeness is kept in every write; a profile's HNSW index is built once a scope's active
 * entries exceed the exact-scan limit.
 */
export class EmbeddingProfiles {
  readonly #db: Kysely<Database>;
  readonly exactVectorScanLimit: number;
  /** Profiles prepared by this store: their completeness is kept in every write. */
  readonly #profiles = new Map<string, EmbeddingProfile>();
  /** Profiles whose HNSW index exists. */
  readonly #indexedProfiles = new Set<string>();

  constructor(db: Kysely<Database>, exactVectorScanLimit: number) {
    this.#db = db;
    this.exactVectorScanLimit = exactVectorScanLimit;
  }

  /** The ids of the prepared profiles. */
  ids(): string[] {
    return [...this.#profiles.keys()];
  }

  /** Whether the profile's HNSW index exists (as far as this store knows). */
  isIndexed(profileId: string): boolean {
    return this.#indexedProfiles.has(profileId);
  }

  async prepare(profile: EmbeddingProfile): Promise<void> {
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
            GROUP BY e.scope_id HAVING count(*) > ${this.exactVectorScanLimit}
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
    if (this.exactVectorScanLimit === 0 || known[0]?.outgrown)
      await this.#createProfileIndex(this.#db, profile);
  }

  async versionsMissingEmbedding(scopeId: string, profileId: string, limit: number) {
    const { rows } = await sql<EntryVersionRow>`
      SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'
        AND NOT EXISTS (SELECT 1 FROM pc_embeddings e WHERE e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})
      ORDER BY v.revision, v.entry_version_id LIMIT ${limit}`.execute(this.#db);
    return rows.map(toEntryVersion);
  }

  async put(scopeId: string, profileId: string, embeddings: readonly EmbeddingToStore[]): Promise<void> {
    if (embeddings.length === 0) return;
    // Under the head row lock, so the completeness statistics move with the vectors.
    await this.#db.transaction().execute(async (trx) => {
      const memory = await lockHead(trx, scopeId);
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
        await this.indexWhenOutgrown(trx, scopeId, memory.head_revision);
      }
    });
  }

  /** Builds the HNSW index of the prepared profiles once the scope's active entries exceed the exact-scan limit. */
  async indexWhenOutgrown(db: Kysely<Database>, scopeId: string, revision: number) {
    const pending = [...this.#profiles.values()].filter((p) => !this.#indexedProfiles.has(p.id));
    if (pending.length === 0) return;
    const { rows } = await sql<{ active: string | number }>`
      SELECT s.active_entries AS active FROM pc_scope_statistics s
      WHERE s.scope_id = ${scopeId} AND s.revision = ${revision}`.execute(db);
    if (rows[0] === undefined || Number(rows[0].active) <= this.exactVectorScanLimit) return;
    for (const profile of pending) await this.#createProfileIndex(db, profile);
  }

  async #createProfileIndex(db: Kysely<Database>, profile: EmbeddingProfile) {
    if (await createProfileIndex(db, profile)) this.#indexedProfiles.add(profile.id);
  }
}

/** Inserts the vectors of a revision's new active versions (a vector already stored is kept). */
export async function insertEmbeddings(
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
