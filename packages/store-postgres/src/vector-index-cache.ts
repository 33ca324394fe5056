import { CpuSlice } from '@powercontext/memory-core';
import { ScopeIndexCache, type ScopeIndexCounts } from './scope-index-cache.js';
import { addedCandidates, type FollowingVectorIndex, noneAdded } from './vector-index-delta.js';

/**
 * An in-process copy of one scope's sparse vectors of one embedding profile as they stood at one
 * revision: the vector of every version live and active at that revision, as float4 values laid out
 * by dimension (for each dimension, the vectors that hold it and their values), and each vector's
 * squared norm. Read from the database in one statement; it chooses which vectors the database scores,
 * never the scores themselves (RFC 0002, "The vector index in memory").
 */
export interface ScopeVectorIndex extends FollowingVectorIndex {
  scopeId: string;
  profileId: string;
  revision: number;
  /** The scope's newest purge revision when the index was read (null: none). */
  purgeMark: number | null;
  entryVersionIds: string[];
  /** Squared norms, summed in float8 from the stored float4 values. */
  norms: Float64Array;
  /** By dimension: the vectors holding dimension d are ordinals[offsets[d]..offsets[d + 1]). */
  offsets: Int32Array;
  ordinals: Int32Array;
  values: Float32Array;
  /** The most non-zero values of one vector. */
  maxNonZero: number;
  /** Estimated bytes held (`vectorIndexBytes`), the unit of the cache's budget. */
  size: number;
  uses: number;
}

/**
 * Bytes an index holds, estimated: per vector its 36-character id (about 64 with its array slot), norm
 * and flags (about 16); per non-zero value 8 (its ordinal and float4 value); per dimension 4.
 */
export function vectorIndexBytes(vectors: number, nonZero: number, dimension: number): number {
  return vectors * 80 + nonZero * 8 + dimension * 4;
}

export interface VectorIndexCacheOptions {
  /** Bytes the cache may hold over all scopes, as estimated by `vectorIndexBytes`. Default 96 MiB. */
  maxBytes?: number;
  /** Searches of a scope at one revision before its vectors are read: at least this many (default 2)... */
  minSearches?: number;
}

const DEFAULT_MAX_BYTES = 96 * 1024 * 1024;
const DEFAULT_MIN_SEARCHES = 2;
/** ...and one more per this many of the scope's active entries. */
const ENTRIES_PER_EXTRA_SEARCH = 5_000;

/**
 * The vector indexes of the (scope, profile) pairs searched most recently, one revision per pair,
 * within a budget of values, read by the rule of ScopeIndexCache. Only sparse profiles are held (the
 * local embedder's vectors hold a few dozen non-zero values of 1,024): there, the vectors a query
 * shares a dimension with are found without touching the others, where the exact scan reads them all.
 */
export class VectorIndexCache {
  readonly #cache: ScopeIndexCache<ScopeVectorIndex>;

  constructor(options: VectorIndexCacheOptions = {}) {
    this.#cache = new ScopeIndexCache({
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      minSearches: options.minSearches ?? DEFAULT_MIN_SEARCHES,
      weightPerExtraSearch: ENTRIES_PER_EXTRA_SEARCH,
    });
  }

  /** Vector searches whose candidates came from memory, indexes read and caught up, since the cache was made. */
  get counts(): Readonly<ScopeIndexCounts> {
    return this.#cache.counts;
  }

  /** The pair's index at whatever revision it holds, if any (not a use). */
  latest(scopeId: string, profileId: string): ScopeVectorIndex | undefined {
    return this.#cache.latest(keyOf(scopeId, profileId));
  }

  /** The index changed size in place from `previousSize` (a delta); evicts others to stay in budget. */
  resized(index: ScopeVectorIndex, previousSize: number): void {
    this.#cache.resized(keyOf(index.scopeId, index.profileId), previousSize);
  }

  caughtUp(milliseconds: number): void {
    this.#cache.caughtUp(milliseconds);
  }

  /** The most bytes one index may take. */
  get maxIndexBytes(): number {
    return this.#cache.maxIndexSize;
  }

  /** Drops the pair's index (one profile). */
  dropIndex(scopeId: string, profileId: string): void {
    this.#cache.drop(keyOf(scopeId, profileId));
  }

  lookup(scopeId: string, profileId: string, revision: number): ScopeVectorIndex | undefined {
    return this.#cache.lookup(keyOf(scopeId, profileId), revision);
  }

  answered(): void {
    this.#cache.answered();
  }

  /** Counts a search the exact scan answered; true when the index at this revision should now be read. */
  missed(scopeId: string, profileId: string, revision: number, activeEntries: number): boolean {
    return this.#cache.missed(keyOf(scopeId, profileId), revision, activeEntries);
  }

  hold(index: ScopeVectorIndex): void {
    this.#cache.hold(keyOf(index.scopeId, index.profileId), index);
  }

  /** The pair's index is over its share of the budget: not read. */
  refused(scopeId: string, profileId: string): void {
    this.#cache.refused(keyOf(scopeId, profileId));
  }

  readFailed(scopeId: string, profileId: string): void {
    this.#cache.readFailed(keyOf(scopeId, profileId));
  }

  /** The scope's indexes held, of every profile, at whatever revision (not a use). */
  heldOf(scopeId: string): ScopeVectorIndex[] {
    const prefix = keyOf(scopeId, '');
    return this.#cache.heldWhere((key) => key.startsWith(prefix));
  }

  /** Drops the scope's indexes of every profile. */
  drop(scopeId: string): void {
    const prefix = keyOf(scopeId, '');
    this.#cache.dropWhere((key) => key.startsWith(prefix));
  }

  clear(): void {
    this.#cache.clear();
  }
}

function keyOf(scopeId: string, profileId: string): string {
  return `${scopeId}\u0000${profileId}`;
}

/** A query vector is sparse enough to search in memory when at most this share of it is non-zero. */
const MAX_DENSITY = 0.25;

/** True when the query's vector is sparse enough that the index in memory pays (see MAX_DENSITY). */
export function isSparseQuery(vector: readonly number[]): boolean {
  let nonZero = 0;
  for (const value of vector) if (value !== 0) nonZero += 1;
  return nonZero > 0 && nonZero <= vector.length * MAX_DENSITY;
}

/** float4's unit roundoff: 2^-24. */
const FLOAT4_ROUNDOFF = 2 ** -24;

/**
 * The versions whose cosine with `vector`, as the database computes it, may place them among the
 * `limit` best (ties at the last place included), or undefined when too many may (the exact scan
 * answers then). The cosines here are computed in float8 from the same float4 values the database
 * holds, so each differs from the database's float4 arithmetic by at most ε, with ε bounded by the
 * values summed: (2·(non-zeros of the query) + 2·(most non-zeros of a vector) + 8) float4 roundoffs,
 * generous for the products, the two norms and the division. With a_k the k-th best cosine here, the
 * database's k-th best is at least a_k − ε, so any version in the database's top k scores here at least
 * a_k − 2ε: every such version is kept, and the database ranks the kept ones (RFC 0002).
 * A vector that shares no dimension with the query scores exactly 0 in both.
 */
export function vectorCandidates(
  index: ScopeVectorIndex,
  vector: readonly number[],
  limit: number,
  maxCandidates: number,
  /** RFC 0014: only the versions it keeps are candidates (as the exact scan's filter). */
  keep?: (entryVersionId: string) => boolean,
): string[] | undefined {
  const count = index.entryVersionIds.length;
  const live = count - index.removedCount + index.added.ids.length;
  if (live <= maxCandidates) return keep ? liveIds(index).filter(keep) : liveIds(index);
  const dots = new Float64Array(count);
  const touched = new Uint8Array(count);
  const touchedOrdinals: number[] = [];
  let queryNorm = 0;
  let queryNonZero = 0;
  const { offsets, ordinals, values } = index;
  for (let dimension = 0; dimension < vector.length; dimension++) {
    const value = Math.fround(vector[dimension]!);
    if (value === 0) continue;
    queryNonZero += 1;
    queryNorm += value * value;
    if (dimension + 1 >= offsets.length) continue;
    for (let at = offsets[dimension]!; at < offsets[dimension + 1]!; at++) {
      const ordinal = ordinals[at]!;
      if (touched[ordinal] === 0) {
        touched[ordinal] = 1;
        touchedOrdinals.push(ordinal);
      }
      dots[ordinal]! += value * values[at]!;
    }
  }
  if (queryNorm === 0) return undefined;
  const ids: string[] = [];
  const cosines: number[] = [];
  for (const ordinal of touchedOrdinals) {
    if (index.removed[ordinal] === 1) continue;
    const norm = index.norms[ordinal]!;
    ids.push(index.entryVersionIds[ordinal]!);
    cosines.push(norm > 0 ? dots[ordinal]! / Math.sqrt(norm * queryNorm) : 0);
  }
  addedCandidates(index.added, vector, queryNorm, ids, cosines);
  if (keep) {
    // Filtered versions leave before the k-th best is found; the untouched ones still count as
    // cosine 0 below, so a filter keeping fewer than `limit` touched versions leaves it to the scan.
    let at = 0;
    for (let from = 0; from < ids.length; from++) {
      if (!keep(ids[from]!)) continue;
      ids[at] = ids[from]!;
      cosines[at] = cosines[from]!;
      at += 1;
    }
    ids.length = at;
    cosines.length = at;
  }
  const maxNonZero = Math.max(index.maxNonZero, index.added.maxNonZero);
  const epsilon = (2 * queryNonZero + 2 * maxNonZero + 8) * FLOAT4_ROUNDOFF;
  const ranked = Float64Array.from(cosines).sort().reverse();
  // The k-th best: among the touched, else 0 (the untouched score exactly 0, and there are enough).
  const kth = ranked.length >= limit ? ranked[limit - 1]! : 0;
  const floor = kth - 2 * epsilon;
  // Untouched vectors (cosine 0) are candidates only when 0 reaches the floor: too many, as a rule.
  if (floor <= 0) return undefined;
  const kept: string[] = [];
  for (let at = 0; at < ids.length; at++) {
    if (cosines[at]! < floor) continue;
    if (kept.length === maxCandidates) return undefined;
    kept.push(ids[at]!);
  }
  return kept;
}

/** The versions the index holds as live at its revision. */
function liveIds(index: ScopeVectorIndex): string[] {
  const read =
    index.removedCount === 0
      ? index.entryVersionIds
      : index.entryVersionIds.filter((_, ordinal) => index.removed[ordinal] === 0);
  return index.added.ids.length === 0 ? read : [...read, ...index.added.ids];
}

/** One row of the read of a vector index: a live, active version and its vector (pgvector's binary form). */
export interface VectorIndexRow {
  entry_version_id: string;
  /** `sparsevec_send`: dimension, non-zeros, 0 (int4 each), the indices (int4), the values (float4). */
  vector: Uint8Array | null;
  purged: number | null;
}

/**
 * Builds the index from the rows of one read, taking turns with the process's other CPU work, or
 * undefined when a version has no vector of the profile (re-embedding may add it later without a new
 * revision, so such an index could go stale) or the vectors are not sparse.
 */
export async function vectorIndexOf(
  scopeId: string,
  profileId: string,
  revision: number,
  rows: readonly VectorIndexRow[],
): Promise<ScopeVectorIndex | undefined> {
  const slice = new CpuSlice();
  const count = rows.length;
  const views: DataView[] = [];
  let dimension = 0;
  let size = 0;
  let maxNonZero = 0;
  for (const row of rows) {
    if (row.vector === null) return undefined;
    const view = new DataView(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength);
    const nonZero = view.getInt32(4);
    dimension = Math.max(dimension, view.getInt32(0));
    size += nonZero;
    maxNonZero = Math.max(maxNonZero, nonZero);
    views.push(view);
  }
  if (count === 0 || size > count * dimension * MAX_DENSITY) return undefined;
  const offsets = new Int32Array(dimension + 1);
  for (const view of views) {
    const nonZero = view.getInt32(4);
    for (let at = 0; at < nonZero; at++) offsets[view.getInt32(12 + 4 * at) + 1]! += 1;
  }
  for (let d = 0; d < dimension; d++) offsets[d + 1]! += offsets[d]!;
  const next = offsets.slice(0, dimension);
  const ordinals = new Int32Array(size);
  const values = new Float32Array(size);
  const norms = new Float64Array(count);
  for (let ordinal = 0; ordinal < count; ordinal++) {
    await slice.check();
    const view = views[ordinal]!;
    const nonZero = view.getInt32(4);
    const valuesAt = 12 + 4 * nonZero;
    let norm = 0;
    for (let at = 0; at < nonZero; at++) {
      const value = view.getFloat32(valuesAt + 4 * at);
      const slot = next[view.getInt32(12 + 4 * at)]!++;
      ordinals[slot] = ordinal;
      values[slot] = value;
      norm += value * value;
    }
    norms[ordinal] = norm;
  }
  return {
    scopeId,
    profileId,
    revision,
    purgeMark: rows[0]?.purged ?? null,
    entryVersionIds: rows.map((row) => row.entry_version_id),
    norms,
    offsets,
    ordinals,
    values,
    maxNonZero,
    removed: new Uint8Array(count),
    removedCount: 0,
    added: noneAdded(),
    ordinalOf: undefined,
    size: vectorIndexBytes(count, size, dimension),
    uses: 0,
  };
}
