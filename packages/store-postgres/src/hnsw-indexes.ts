import { createHash } from 'node:crypto';
import type { EmbeddingProfile } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';

/**
 * The HNSW indexes of the vector channel: one per (profile, scope) whose active entries outgrew the
 * exact scan (RFC 0002, "The HNSW index of a large scope"). Each is partial, over the rows of its
 * profile and scope only, so a write into any other scope never touches it.
 */

/** pgvector indexes `vector` columns of at most this many dimensions. */
export const HNSW_MAX_DIMENSION = 2_000;

/** The prefix of every per-scope HNSW index (migration 0014 dropped the per-profile `pc_embeddings_hnsw_*`). */
export const SCOPE_HNSW_PREFIX = 'pc_embeddings_scope_hnsw_';

/** The index of a (profile, scope): named by a digest of both, so every process finds the same one. */
export function scopeIndexName(profileId: string, scopeId: string): string {
  const digest = createHash('sha256').update(`${profileId}\u0000${scopeId}`).digest('hex');
  return `${SCOPE_HNSW_PREFIX}${digest.slice(0, 32)}`;
}

/** Of these scopes, those whose index of the profile exists and is valid (a build may have died), in one read. */
export async function existingScopeIndexes(
  db: Kysely<Database>,
  profileId: string,
  scopeIds: readonly string[],
): Promise<string[]> {
  if (scopeIds.length === 0) return [];
  const { rows } = await sql<{ scope_id: string }>`
    SELECT s.scope_id FROM unnest(${[...scopeIds]}::text[], ${scopeIds.map((id) => scopeIndexName(profileId, id))}::text[])
      AS s(scope_id, index_name)
    WHERE EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass(s.index_name) AND i.indisvalid)`.execute(
    db,
  );
  return rows.map((row) => row.scope_id);
}

/**
 * Sessions of their own for index builds, without the store's statement bounds (PostgreSQL only): a
 * build of a large scope takes minutes, longer than any request may.
 */
export interface IndexBuildSessions {
  /** Runs `work` on a session of its own. */
  run(work: (session: Kysely<Database>) => Promise<void>): Promise<void>;
  /** Cancels a build in flight and closes the sessions. */
  close(): Promise<void>;
}

/** Bytes of the graph pgvector holds while building, per vector: the vector plus its neighbour lists. */
function buildBytesPerVector(dimension: number): number {
  return dimension * 4 + 1_024;
}

/** The most memory a build asks for: the graph of 100,000 vectors of 1,024 dimensions, and a margin. */
const MAX_BUILD_KB = 1_024 * 1_024;

/** The statement that builds the index of a (profile, scope). */
function createIndexStatement(profile: EmbeddingProfile, scopeId: string, concurrently: boolean) {
  const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return sql.raw(
    `CREATE INDEX ${concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${scopeIndexName(profile.id, scopeId)} ON pc_embeddings USING hnsw ((embedding::vector(${profile.dimension})) vector_cosine_ops) WHERE profile_id = ${quote(profile.id)} AND (scope_id || '') = ${quote(scopeId)}`,
  );
}

/** Raises `maintenance_work_mem` to what the graph of the scope's vectors needs (never lowers it). */
async function raiseBuildMemory(
  db: Kysely<Database>,
  profile: EmbeddingProfile,
  scopeId: string,
  local: boolean,
) {
  await sql`
    SELECT set_config('maintenance_work_mem', greatest(
      (SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'),
      least(${MAX_BUILD_KB}::bigint, (
        SELECT count(*) FROM pc_embeddings e WHERE e.scope_id = ${scopeId} AND e.profile_id = ${profile.id}
      ) * ${buildBytesPerVector(profile.dimension)} / 1024 * 5 / 4)
    )::text || 'kB', ${local})`.execute(db);
}

/**
 * Builds the HNSW index of a (profile, scope) in the caller's transaction (PGlite, whose one connection
 * has no other session to build on), over the vectors cast to the profile's dimension (pgvector needs a
 * fixed one), in one pass over the rows already stored: far cheaper than inserting them one by one,
 * provided the graph fits in `maintenance_work_mem` (a build that outgrows it goes on at a fraction of
 * the speed), so the setting is raised, for this transaction only, to what the scope's vectors need.
 * The predicate compares the scope as `(scope_id || '')`, exactly as the HNSW search does: the planner
 * then proves the partial index applies, and the (scope, profile) b-tree cannot serve that comparison.
 * Profiles above 2,000 dimensions get no index. Returns whether the index exists.
 */
export async function createScopeIndex(
  db: Kysely<Database>,
  profile: EmbeddingProfile,
  scopeId: string,
): Promise<boolean> {
  if (profile.dimension > HNSW_MAX_DIMENSION) return false;
  // Under the migration lock, in a transaction: two processes creating the same index at once would
  // otherwise collide in the catalog even with IF NOT EXISTS (RFC 0005, "More than one server").
  const create = async (trx: Kysely<Database>) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
    await raiseBuildMemory(trx, profile, scopeId, true);
    await createIndexStatement(profile, scopeId, false).execute(trx);
  };
  if (db.isTransaction) await create(db);
  else await db.transaction().execute(create);
  return true;
}

/**
 * Builds the HNSW index of a (profile, scope) on a session of its own, beside the writes
 * (PostgreSQL): `CREATE INDEX CONCURRENTLY` takes no lock that stops inserts into `pc_embeddings`, so
 * no write of any scope waits for it, and the search uses the index once it is valid (exact scan
 * until then). One build per index at a time across processes (a session advisory lock named by the
 * index; a process that finds it taken leaves the build to the holder). A build that died (process
 * gone, cancelled) leaves an invalid index, which the next build drops first. Returns whether this
 * session left the index valid.
 */
export async function buildScopeIndexConcurrently(
  session: Kysely<Database>,
  profile: EmbeddingProfile,
  scopeId: string,
): Promise<boolean> {
  if (profile.dimension > HNSW_MAX_DIMENSION) return false;
  const name = scopeIndexName(profile.id, scopeId);
  const { rows } = await sql<{ locked: boolean }>`
    SELECT pg_try_advisory_lock(hashtextextended(${name}, 0)) AS locked`.execute(session);
  if (!rows[0]?.locked) return false;
  try {
    const { rows: present } = await sql<{ valid: boolean }>`
      SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass(${name})`.execute(
      session,
    );
    if (present[0]?.valid) return true;
    if (present[0]) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(session);
    await raiseBuildMemory(session, profile, scopeId, false);
    await createIndexStatement(profile, scopeId, true).execute(session);
    return true;
  } finally {
    await sql`SELECT pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(session).catch(() => {});
    await sql`RESET maintenance_work_mem`.execute(session).catch(() => {});
  }
}
