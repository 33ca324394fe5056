/**
 * The vectors of versions written after a vector index was read, kept beside the read ones (whose
 * layout by dimension is built once) until the index is read again: a few per write, each scored on
 * its own against the query.
 */
export interface AddedVectors {
  ids: string[];
  indices: Int32Array[];
  values: Float32Array[];
  /** Squared norms, summed in float8 from the float4 values. */
  norms: number[];
  maxNonZero: number;
  nonZero: number;
}

/** What a delta changes of a vector index (ScopeVectorIndex extends it). */
export interface FollowingVectorIndex {
  revision: number;
  entryVersionIds: string[];
  /** 1 where a read vector's version stopped being live since the read. */
  removed: Uint8Array;
  removedCount: number;
  /** The vectors of versions written since the read. */
  added: AddedVectors;
  /** The read vectors' numbers by version, made at the first delta. */
  ordinalOf: Map<string, number> | undefined;
  /** Estimated bytes held. */
  size: number;
}

export function noneAdded(): AddedVectors {
  return { ids: [], indices: [], values: [], norms: [], maxNonZero: 0, nonZero: 0 };
}

/** One row of a vector index's delta read (`vectorDelta`). */
export interface VectorDeltaRow {
  kind: 'mark' | 'added' | 'gone';
  entry_version_id: string | null;
  /** `sparsevec_send` of an added version's vector; null when it has none of the profile. */
  vector: Uint8Array | null;
  purged: number | null;
}

/** Beyond this many vectors added since the read (or a quarter of the read ones), it is read again. */
const MAX_ADDED = 512;

/**
 * Moves the index forward to `revision` by a delta read: versions superseded since (`gone`) stop
 * being live, versions written since and live and active at `revision` are added. Returns false when
 * the index cannot follow (an added version lacks a vector, which re-embedding could add later without
 * a revision, or too much was added or removed since the read): the caller drops it. The caller
 * checked the purge mark.
 */
export function applyVectorDelta(
  index: FollowingVectorIndex,
  revision: number,
  rows: readonly VectorDeltaRow[],
): boolean {
  const read = index.entryVersionIds.length;
  index.ordinalOf ??= new Map(index.entryVersionIds.map((id, ordinal) => [id, ordinal]));
  const added = rows.filter((row) => row.kind === 'added');
  if (added.some((row) => row.vector === null)) return false;
  if (index.added.ids.length + added.length > Math.max(MAX_ADDED, read / 4)) return false;
  for (const row of rows) {
    if (row.kind !== 'gone') continue;
    const id = row.entry_version_id!;
    const ordinal = index.ordinalOf.get(id);
    if (ordinal !== undefined && index.removed[ordinal] === 0) {
      index.removed[ordinal] = 1;
      index.removedCount += 1;
      continue;
    }
    const at = index.added.ids.indexOf(id);
    if (at >= 0) removeAdded(index.added, at);
  }
  if (index.removedCount > Math.max(MAX_ADDED, read / 4)) return false;
  for (const row of added) addVector(index.added, row.entry_version_id!, row.vector!);
  index.revision = revision;
  index.size += added.length * 80 + added.reduce((sum, row) => sum + row.vector!.byteLength, 0);
  return true;
}

function addVector(added: AddedVectors, id: string, bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nonZero = view.getInt32(4);
  const indices = new Int32Array(nonZero);
  const values = new Float32Array(nonZero);
  let norm = 0;
  for (let at = 0; at < nonZero; at++) {
    indices[at] = view.getInt32(12 + 4 * at);
    const value = view.getFloat32(12 + 4 * nonZero + 4 * at);
    values[at] = value;
    norm += value * value;
  }
  added.ids.push(id);
  added.indices.push(indices);
  added.values.push(values);
  added.norms.push(norm);
  added.nonZero += nonZero;
  added.maxNonZero = Math.max(added.maxNonZero, nonZero);
}

function removeAdded(added: AddedVectors, at: number) {
  added.nonZero -= added.indices[at]!.length;
  for (const list of [added.ids, added.indices, added.values, added.norms]) list.splice(at, 1);
}

/**
 * Appends the added vectors that share a dimension with the query to `ids` and their cosines, computed
 * in float8 from the float4 values as the read ones are (`vectorCandidates`).
 */
export function addedCandidates(
  added: AddedVectors,
  vector: readonly number[],
  queryNorm: number,
  ids: string[],
  cosines: number[],
): void {
  for (let at = 0; at < added.ids.length; at++) {
    const indices = added.indices[at]!;
    const values = added.values[at]!;
    let dot = 0;
    let touched = false;
    for (let k = 0; k < indices.length; k++) {
      const query = Math.fround(vector[indices[k]!] ?? 0);
      if (query === 0) continue;
      touched = true;
      dot += query * values[k]!;
    }
    if (!touched) continue;
    const norm = added.norms[at]!;
    ids.push(added.ids[at]!);
    cosines.push(norm > 0 ? dot / Math.sqrt(norm * queryNorm) : 0);
  }
}
