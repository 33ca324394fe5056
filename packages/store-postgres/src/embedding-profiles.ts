import type { EmbeddingProfile, EmbeddingToStore } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { lockHead } from './entry-reads.js';
import { ENTRY_VERSION_COLUMNS, type EntryVersionRow, toEntryVersion } from './entry-version-row.js';
import {
  buildScopeIndexConcurrently,
  createScopeIndex,
  existingScopeIndexes,
  HNSW_MAX_DIMENSION,
  type IndexBuildSessions,
  scopeIndexName,
} from './hnsw-indexes.js';
import { subtractEmbedded } from './search-statistics.js';
import { quotedArrayLiteral, toSparseVectorLiteral } from './vector-literal.js';

/**
 * The embedding profiles this store has prepared, their vectors and their HNSW indexes. A prepared
 * profile's completeness is kept in every write; a scope gets its own HNSW index of a profile once its
 * active entries exceed the exact-scan limit (hnsw-indexes.ts): on PostgreSQL built beside the writes on
 * a session of its own, on PGlite in the write that takes the scope past the limit.
 */
export class EmbeddingProfiles {
  readonly #db: Kysely<Database>;
  readonly exactVectorScanLimit: number;
  /** Profiles prepared by this store: their completeness is kept in every write. */
  readonly #profiles = new Map<string, EmbeddingProfile>();
  /** The (profile, scope) pairs whose HNSW index exists, as `profile\u0000scope`. */
  readonly #indexedScopes = new Set<string>();
  /** Where builds run beside the writes; undefined: in the write's transaction. */
  readonly #builds: IndexBuildSessions | undefined;
  /** Builds in flight, by pair. */
  readonly #building = new Map<string, Promise<void>>();
  /** A pair whose build failed is not tried again before this time (ms since the epoch). */
  readonly #retryAfter = new Map<string, number>();

  constructor(db: Kysely<Database>, exactVectorScanLimit: number, builds?: IndexBuildSessions) {
    this.#db = db;
    this.exactVectorScanLimit = exactVectorScanLimit;
    this.#builds = builds;
  }

  /** Resolves once no index build is in flight (tests, the benchmark). */
  async buildsSettled(): Promise<void> {
    while (this.#building.size > 0) await Promise.all(this.#building.values());
  }

  /** The ids of the prepared profiles. */
  ids(): string[] {
    return [...this.#profiles.keys()];
  }

  /** Whether the scope's HNSW index of the profile exists (as far as this store knows). */
  isIndexed(profileId: string, scopeId: string): boolean {
    return this.#indexedScopes.has(pairKey(profileId, scopeId));
  }

  /**
   * Whether the scope's HNSW index of the profile exists, asking the catalog when this store has not
   * seen it (another process may have built it since this one opened); only a found index is remembered.
   */
  async findIndex(profileId: string, scopeId: string): Promise<boolean> {
    if (this.isIndexed(profileId, scopeId)) return true;
    const found = await existingScopeIndexes(this.#db, profileId, [scopeId]);
    if (found.length > 0) this.#indexedScopes.add(pairKey(profileId, scopeId));
    return found.length > 0;
  }

  async prepare(profile: EmbeddingProfile): Promise<void> {
    if (!Number.isInteger(profile.dimension) || profile.dimension < 1) {
      throw new TypeError(`embedding profile ${profile.id} has an invalid dimension ${profile.dimension}`);
    }
    // One read for a profile met before (every open but the first): a read-only command writes nothing.
    // The same statement names the scopes that outgrew the exact scan (one statistics row per scope).
    const { rows: known } = await sql<{ registered: boolean; outgrown: string[] }>`
      SELECT EXISTS (SELECT 1 FROM pc_embedding_profiles WHERE profile_id = ${profile.id}) AS registered,
        ARRAY(SELECT s.scope_id FROM pc_scope_statistics s
          WHERE s.active_entries > ${this.exactVectorScanLimit} ORDER BY s.scope_id) AS outgrown`.execute(
      this.#db,
    );
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
    if (profile.dimension > HNSW_MAX_DIMENSION) return;
    const outgrown = known[0]?.outgrown ?? [];
    const indexed = new Set(await existingScopeIndexes(this.#db, profile.id, outgrown));
    for (const scopeId of indexed) this.#indexedScopes.add(pairKey(profile.id, scopeId));
    // Scopes that outgrew the limit without an index of this profile (a profile met for the first time,
    // or a database whose per-profile index migration 0014 dropped) get theirs now.
    for (const scopeId of outgrown) {
      if (!indexed.has(scopeId)) await this.#createScopeIndex(this.#db, profile, scopeId);
    }
  }

  async versionsMissingEmbedding(scopeId: string, profileId: string, limit: number) {
    const { rows } = await sql<EntryVersionRow>`
      SELECT ${ENTRY_VERSION_COLUMNS} FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active'
        AND NOT EXISTS (SELECT 1 FROM pc_embeddings e
          WHERE e.scope_id = ${scopeId} AND e.entry_version_id = v.entry_version_id AND e.profile_id = ${profileId})
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
        .onConflict((conflict) =>
          conflict.columns(['scope_id', 'entry_version_id', 'profile_id']).doNothing(),
        )
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

  /**
   * Builds the scope's HNSW index of each prepared profile once its active entries exceed the exact-scan
   * limit, in the write that takes it past the limit: one build over the vectors stored so far.
   */
  async indexWhenOutgrown(db: Kysely<Database>, scopeId: string, revision: number) {
    const pending = [...this.#profiles.values()].filter(
      (p) => p.dimension <= HNSW_MAX_DIMENSION && !this.isIndexed(p.id, scopeId),
    );
    if (pending.length === 0) return;
    const { rows } = await sql<{ active: string | number }>`
      SELECT s.active_entries AS active FROM pc_scope_statistics s
      WHERE s.scope_id = ${scopeId} AND s.revision = ${revision}`.execute(db);
    if (rows[0] === undefined || Number(rows[0].active) <= this.exactVectorScanLimit) return;
    for (const profile of pending) await this.#createScopeIndex(db, profile, scopeId);
  }

  /**
   * Drops the HNSW indexes of a deleted scope, of every profile the database knows (RFC 0015): the
   * scope's rows are gone and its name is never written again, so an index of it would only take
   * space. A build of the scope in flight here is awaited first. On PostgreSQL the drop runs
   * concurrently on a build session, so no write of another scope waits for it. Best effort: the
   * deletion is committed already, and a drop that fails leaves an empty index behind, nothing more.
   */
  async dropScopeIndexes(scopeId: string): Promise<void> {
    const inFlight = [...this.#building].filter(([key]) => key.endsWith(`\u0000${scopeId}`));
    await Promise.all(inFlight.map(([, build]) => build));
    const { rows: profiles } = await sql<{ profile_id: string }>`
      SELECT profile_id FROM pc_embedding_profiles`.execute(this.#db);
    for (const { profile_id: profileId } of profiles) this.#indexedScopes.delete(pairKey(profileId, scopeId));
    const names = profiles.map(({ profile_id: profileId }) => scopeIndexName(profileId, scopeId));
    const { rows: present } = await sql<{ name: string }>`
      SELECT n.name FROM unnest(${names}::text[]) AS n(name) WHERE to_regclass(n.name) IS NOT NULL`.execute(
      this.#db,
    );
    for (const { name } of present) {
      try {
        if (this.#builds) {
          await this.#builds.run(async (session) => {
            await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(session);
          });
        } else {
          await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(this.#db);
        }
      } catch {
        // Left for an operator: the index is empty and harmless (RFC 0015).
      }
    }
  }

  async #createScopeIndex(db: Kysely<Database>, profile: EmbeddingProfile, scopeId: string) {
    const builds = this.#builds;
    if (!builds) {
      if (await createScopeIndex(db, profile, scopeId)) this.#indexedScopes.add(pairKey(profile.id, scopeId));
      return;
    }
    const key = pairKey(profile.id, scopeId);
    if (this.#building.has(key) || (this.#retryAfter.get(key) ?? 0) > Date.now()) return;
    const build = builds
      .run(async (session) => {
        if (await buildScopeIndexConcurrently(session, profile, scopeId)) this.#indexedScopes.add(key);
      })
      .catch(() => {
        // Searches stay exact; a later write into the scope tries again.
        this.#retryAfter.set(key, Date.now() + BUILD_RETRY_MS);
      })
      .finally(() => this.#building.delete(key));
    this.#building.set(key, build);
  }
}

/** How long a failed build waits before a write into its scope tries again. */
const BUILD_RETRY_MS = 60_000;

function pairKey(profileId: string, scopeId: string): string {
  return `${profileId}\u0000${scopeId}`;
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
    ON CONFLICT (scope_id, entry_version_id, profile_id) DO NOTHING`.execute(db);
}
