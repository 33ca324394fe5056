import type { ChannelCandidate, VectorSearchQuery } from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { ActiveEntryCounts } from './active-entries.js';
import type { Database } from './database.js';
import type { EmbeddingProfiles } from './embedding-profiles.js';
import { liveAt, visibleAt } from './entry-version-row.js';
import { executePrepared } from './prepared.js';
import { type BackgroundReads, CatchUps } from './scope-index-cache.js';
import { type CandidateRow, purgeMarkOf } from './store-sql.js';
import {
  isSparseQuery,
  type ScopeVectorIndex,
  type VectorIndexCache,
  type VectorIndexRow,
  vectorCandidates,
  vectorIndexOf,
} from './vector-index-cache.js';
import { applyVectorDelta, type VectorDeltaRow } from './vector-index-delta.js';
import { quotedArrayLiteral, toSparseVectorLiteral, toVectorLiteral } from './vector-literal.js';

export interface VectorChannelOptions {
  db: Kysely<Database>;
  profiles: EmbeddingProfiles;
  activeEntries: ActiveEntryCounts;
  /** The scopes' sparse vectors held in memory; undefined: the exact scan always answers. */
  cache: VectorIndexCache | undefined;
  /** The store's bound on whole reads running at once (shared with the lexical channel). */
  reads: BackgroundReads;
  /** Whether the store has closed: a background read then holds nothing. */
  closed: () => boolean;
}

/**
 * The vector channel: pgvector's cosine over a scope's vectors of one profile, live and active at a
 * revision. Exact up to the exact-scan limit (with the sparse vectors held in memory choosing what the
 * database scores, RFC 0002, "The vector index in memory"), the profile's HNSW index above it.
 */
export class VectorChannel {
  readonly #db: Kysely<Database>;
  readonly #profiles: EmbeddingProfiles;
  readonly #activeEntries: ActiveEntryCounts;
  readonly #vectorIndexes: VectorIndexCache | undefined;
  readonly #closed: () => boolean;
  readonly #reads: BackgroundReads;
  /** Catch-ups in flight, by (scope, profile): searches of the same pair wait for the one read. */
  readonly #catchUps = new CatchUps();

  constructor(options: VectorChannelOptions) {
    this.#db = options.db;
    this.#profiles = options.profiles;
    this.#activeEntries = options.activeEntries;
    this.#vectorIndexes = options.cache;
    this.#closed = options.closed;
    this.#reads = options.reads;
  }

  async search(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    const exact =
      !this.#profiles.isIndexed(query.profileId) ||
      (await this.#liveEntries(query.scopeId, query.revision)) <= this.#profiles.exactVectorScanLimit;
    if (!exact) return toChannelCandidates((await hnswVectorSearch(query).execute(this.#db)).rows);
    const cache = query.limit > 0 && isSparseQuery(query.vector) ? this.#vectorIndexes : undefined;
    const { scopeId, profileId, revision } = query;
    const held =
      cache &&
      (await this.#catchUps.indexAt(`${scopeId}\u0000${profileId}`, revision, {
        lookup: () => cache.lookup(scopeId, profileId, revision),
        latest: () => cache.latest(scopeId, profileId),
        catchUp: (index) => this.#catchUp(cache, index, revision),
      }));
    if (held) {
      const answer = await this.#vectorSearchInMemory(held, query);
      if (answer) return answer;
    }
    const rows = await executePrepared(this.#db, exactVectorSearch(query));
    const active = this.#activeEntries.known(query.scopeId, query.revision) ?? 0;
    // A query the index held at this revision left to the scan (dense, or its k-th cosine about 0) is
    // no reason to read the index again.
    if (!held && cache?.missed(query.scopeId, query.profileId, query.revision, active)) {
      if (this.#reads.tryStart()) {
        void this.#readVectorIndex(query.scopeId, query.profileId, query.revision).finally(() =>
          this.#reads.end(),
        );
      } else {
        cache.readFailed(query.scopeId, query.profileId);
      }
    }
    return toChannelCandidates(rows);
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

  /** Moves the held index forward to `revision` by one delta read, or drops it (see applyVectorDelta). */
  async #catchUp(cache: VectorIndexCache, index: ScopeVectorIndex, revision: number): Promise<void> {
    const started = performance.now();
    const from = index.revision;
    let rows: VectorDeltaRow[];
    try {
      rows = await executePrepared(this.#db, vectorDelta(index.scopeId, index.profileId, from, revision));
    } catch {
      cache.dropIndex(index.scopeId, index.profileId);
      return;
    }
    if (this.#closed() || cache.latest(index.scopeId, index.profileId) !== index || index.revision !== from)
      return;
    const mark = rows.find((row) => row.kind === 'mark');
    const previousSize = index.size;
    if ((mark?.purged ?? null) !== index.purgeMark || !applyVectorDelta(index, revision, rows)) {
      cache.dropIndex(index.scopeId, index.profileId);
      return;
    }
    cache.resized(index, previousSize);
    cache.caughtUp(performance.now() - started);
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
        WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
        LIMIT ${maxVectorRows(cache.maxIndexBytes) + 1}`.execute(this.#db);
      if (this.#closed()) return;
      // More vectors than the index's share of the budget could hold even if each had one value.
      if (rows.length > maxVectorRows(cache.maxIndexBytes)) {
        cache.refused(scopeId, profileId);
        return;
      }
      const index = await vectorIndexOf(scopeId, profileId, revision, rows);
      if (this.#closed()) return;
      if (index) cache.hold(index);
      else cache.readFailed(scopeId, profileId);
    } catch {
      cache.readFailed(scopeId, profileId);
    }
  }

  /** Active entries at the revision: remembered from the statistics read, else counted up to the limit. */
  async #liveEntries(scopeId: string, revision: number): Promise<number> {
    const known = this.#activeEntries.known(scopeId, revision);
    if (known !== undefined) return known;
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM pc_entry_versions v WHERE ${liveAt(scopeId, revision)} AND v.state = 'active'
        LIMIT ${this.#profiles.exactVectorScanLimit + 1}
      ) AS bounded`.execute(this.#db);
    return rows[0]?.n ?? 0;
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

/** The most vectors an index of `maxBytes` can hold (`vectorIndexBytes` of one value each, no dimensions). */
function maxVectorRows(maxBytes: number): number {
  return Math.floor(maxBytes / 88);
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

/**
 * The cosine of each stored vector (`e.embedding`) to `vector`, as the exact scan computes it. The vector
 * index in memory relies on the database scoring its candidates with this same expression.
 */
function sparseCosineTo(vector: readonly number[]) {
  return cosineOf(sql`e.embedding <=> ${toSparseVectorLiteral(vector)}::sparsevec`);
}

/** 1 - cosine distance; a zero vector has no direction (NaN), which scores 0 instead of sorting first. */
function cosineOf(distance: ReturnType<typeof sql>) {
  return sql`coalesce(nullif(1 - (${distance}), 'NaN'::float8), 0)`;
}

/**
 * The delta of a (scope, profile) vector index from revision `from` to `to`, in one statement: the
 * purge mark; the versions written after `from` that are live and active at `to`, with their vector
 * (`added`); and the versions that a version written after `from` superseded (`gone`). Both read the
 * scope's versions by (scope, revision); each vector is read by its key (LATERAL, LIMIT 1: without
 * table statistics the planner would otherwise scan the scope's vectors).
 */
function vectorDelta(scopeId: string, profileId: string, from: number, to: number) {
  return sql<VectorDeltaRow>`
    WITH mark AS MATERIALIZED (
      SELECT ${purgeMarkOf(scopeId)} AS purged
    ), written AS MATERIALIZED (
      SELECT v.entry_version_id, v.previous_version_id, v.state, v.superseded_revision
      FROM pc_entry_versions v
      WHERE v.scope_id = ${scopeId} AND v.revision > ${from} AND v.revision <= ${to}
    )
    SELECT 'mark' AS kind, NULL::uuid AS entry_version_id, NULL::bytea AS vector, m.purged FROM mark m
    UNION ALL
    SELECT 'added', w.entry_version_id, e.vector, NULL
    FROM written w
    LEFT JOIN LATERAL (
      SELECT sparsevec_send(e.embedding) AS vector FROM pc_embeddings e
      WHERE e.entry_version_id = w.entry_version_id AND e.profile_id = ${profileId}
      LIMIT 1
    ) e ON true
    WHERE w.state = 'active' AND (w.superseded_revision IS NULL OR w.superseded_revision > ${to})
    UNION ALL
    SELECT 'gone', w.previous_version_id, NULL, NULL FROM written w WHERE w.previous_version_id IS NOT NULL`;
}
