import { type Bm25Parameters, CpuSlice, type LexicalCandidate } from '@powercontext/memory-core';

/**
 * An in-process copy of one scope's lexical index as it stands at one revision: the projections
 * visible at that revision (entry, version, state, length) and, per lexeme, the projections that hold
 * it with their term frequencies, plus the BM25 figures (N, average length) the statement would use
 * at that revision. Read whole from the database once (`lexicalIndexOf`), then moved forward revision
 * by revision by what each added and superseded (`applyLexicalDelta`), so a write costs a small read
 * instead of a new whole one. PostgreSQL stays the one source of truth; this is only a faster way to
 * compute what the lexical statement computes (RFC 0002, "Indexes in memory").
 *
 * Projections are numbered in the order they arrived; a superseded one stays in the arrays, marked
 * invisible, until the index is compacted (read again). Each lexeme's idf is not held: it depends on
 * N and the lexeme's document frequency at the revision, and is computed by the database
 * (`IdfTable`), whose `ln` the statement uses.
 */
export interface ScopeLexicalIndex {
  scopeId: string;
  revision: number;
  /** The scope's newest purge revision when the index was read (null: none). A purge rewrites the past. */
  purgeMark: number | null;
  /** BM25's N and average document length at the revision, as the lexical statement takes them. */
  projections: number;
  averageLength: number;
  /** Projections numbered so far (visible or not); the typed arrays may be longer. */
  docCount: number;
  entryIds: string[];
  entryVersionIds: string[];
  /** 1 where the projection's version is active. */
  active: Uint8Array;
  /** 1 where the projection is visible at `revision`. */
  visible: Uint8Array;
  lengths: Float64Array;
  /** The visible projection of each entry version, by its number. */
  docOf: Map<string, number>;
  postings: Map<string, LexemePostings>;
  /** Projections numbered but no longer visible: the index is read again when they are many. */
  superseded: number;
  /** Estimated bytes held (`lexicalIndexBytes`), the unit of the cache's budget. */
  size: number;
  /** Searches answered from it so far. */
  uses: number;
}

export interface LexemePostings {
  /** Projection numbers and term frequencies; the first `length` slots are used. */
  docs: Int32Array;
  tfs: Float64Array;
  length: number;
}

/**
 * One row of the statement that reads an index whole (`readLexicalIndex`) or a delta
 * (`readLexicalDelta`): the figures (`value` is N), a projection (`value` is its length) or a
 * lexeme's postings (`value` is its idf at the revision, in a whole read).
 */
export interface LexicalIndexRow {
  kind: 'stats' | 'doc' | 'lexeme' | 'gone';
  ord: number | null;
  entry_version_id: string | null;
  entry_id: string | null;
  active: boolean | null;
  value: number | null;
  average_length: number | null;
  lexeme: string | null;
  /** The projections' numbers (within the read), big-endian int4 each. */
  ords: Uint8Array | null;
  /** Their term frequencies, big-endian float8 each. */
  tfs: Uint8Array | null;
  purged: number | null;
}

/**
 * Bytes an index holds, estimated from what V8 stores: per projection two 36-character ids (about 56
 * bytes each as strings, 8 per array slot), its length, flags and its `docOf` entry (about 60); per
 * lexeme its map entry, object and typed arrays (about 160) and its text; per posting slot 12 bytes.
 */
export function lexicalIndexBytes(
  docSlots: number,
  lexemes: number,
  lexemeChars: number,
  postingSlots: number,
) {
  return docSlots * 200 + lexemes * 160 + lexemeChars * 2 + postingSlots * 12;
}

/**
 * Builds the in-memory index from the rows of one whole read, taking turns with the process's other
 * CPU work (CpuSlice). `idfs` learns each lexeme's idf at the read's (N, df). Returns undefined as soon
 * as the index would hold more than `maxBytes`.
 */
export async function lexicalIndexOf(
  scopeId: string,
  revision: number,
  rows: readonly LexicalIndexRow[],
  idfs: IdfTable,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<ScopeLexicalIndex | undefined> {
  const stats = rows.find((row) => row.kind === 'stats');
  const docs = rows.filter((row) => row.kind === 'doc');
  const index: ScopeLexicalIndex = {
    scopeId,
    revision,
    purgeMark: stats?.purged ?? null,
    projections: Number(stats?.value ?? 0),
    averageLength: Number(stats?.average_length ?? 0),
    docCount: docs.length,
    entryIds: new Array<string>(docs.length),
    entryVersionIds: new Array<string>(docs.length),
    active: new Uint8Array(docs.length),
    visible: new Uint8Array(docs.length).fill(1),
    lengths: new Float64Array(docs.length),
    docOf: new Map(),
    postings: new Map(),
    superseded: 0,
    size: lexicalIndexBytes(docs.length, 0, 0, 0),
    uses: 0,
  };
  if (index.size > maxBytes) return undefined;
  for (const row of docs) {
    const ord = row.ord!;
    index.entryIds[ord] = row.entry_id!;
    index.entryVersionIds[ord] = row.entry_version_id!;
    index.active[ord] = row.active ? 1 : 0;
    index.lengths[ord] = Number(row.value);
    index.docOf.set(row.entry_version_id!, ord);
  }
  const slice = new CpuSlice();
  for (const row of rows) {
    await slice.check();
    if (row.kind !== 'lexeme') continue;
    const list = decodePostings(row, 0);
    index.postings.set(row.lexeme!, list);
    idfs.learn(index.projections, list.length, Number(row.value));
    index.size += lexicalIndexBytes(0, 1, row.lexeme!.length, list.length);
    if (index.size > maxBytes) return undefined;
  }
  return index;
}

/**
 * Moves the index forward to `revision` by the rows of a delta read: the projections that became
 * visible after the index's revision (numbered from 0 within the read), the versions whose projection
 * stopped being visible (`gone`), and the figures at the new revision. A version re-projected in the
 * delta loses its old projection first. The caller checked the purge mark. Returns the new size.
 */
export function applyLexicalDelta(
  index: ScopeLexicalIndex,
  revision: number,
  rows: readonly LexicalIndexRow[],
): number {
  const added = rows.filter((row) => row.kind === 'doc');
  for (const row of rows) {
    if (row.kind === 'gone') hide(index, row.entry_version_id!);
  }
  for (const row of added) hide(index, row.entry_version_id!);
  const base = index.docCount;
  const docSlots = index.active.length;
  growDocs(index, base + added.length);
  for (const row of added) {
    const ord = base + row.ord!;
    index.entryIds[ord] = row.entry_id!;
    index.entryVersionIds[ord] = row.entry_version_id!;
    index.active[ord] = row.active ? 1 : 0;
    index.visible[ord] = 1;
    index.lengths[ord] = Number(row.value);
    index.docOf.set(row.entry_version_id!, ord);
  }
  index.docCount = base + added.length;
  let postingSlots = 0;
  let newLexemes = 0;
  let newChars = 0;
  for (const row of rows) {
    if (row.kind !== 'lexeme') continue;
    const delta = decodePostings(row, base);
    let list = index.postings.get(row.lexeme!);
    const before = list?.docs.length ?? 0;
    if (!list) {
      list = { docs: new Int32Array(delta.length), tfs: new Float64Array(delta.length), length: 0 };
      index.postings.set(row.lexeme!, list);
      newLexemes += 1;
      newChars += row.lexeme!.length;
    }
    appendPostings(list, delta);
    postingSlots += list.docs.length - before;
  }
  const stats = rows.find((row) => row.kind === 'stats');
  index.projections = Number(stats?.value ?? 0);
  index.averageLength = Number(stats?.average_length ?? 0);
  index.revision = revision;
  index.size += lexicalIndexBytes(index.active.length - docSlots, newLexemes, newChars, postingSlots);
  return index.size;
}

/** Marks the version's visible projection (if any) as superseded: its postings stop counting. */
function hide(index: ScopeLexicalIndex, entryVersionId: string) {
  const doc = index.docOf.get(entryVersionId);
  if (doc === undefined) return;
  index.docOf.delete(entryVersionId);
  index.visible[doc] = 0;
  index.superseded += 1;
}

/** The lexeme's document frequency at the index's revision: its visible projections. */
export function documentFrequency(index: ScopeLexicalIndex, lexeme: string): number {
  const list = index.postings.get(lexeme);
  if (!list) return 0;
  if (index.superseded === 0) return list.length;
  let df = 0;
  for (let at = 0; at < list.length; at++) df += index.visible[list.docs[at]!]!;
  return df;
}

function growDocs(index: ScopeLexicalIndex, needed: number) {
  if (index.active.length >= needed) return;
  const capacity = Math.max(needed, Math.ceil(index.active.length * 1.25) + 16);
  const grow = <T extends Uint8Array | Float64Array>(from: T, make: (n: number) => T): T => {
    const to = make(capacity);
    to.set(from);
    return to;
  };
  index.active = grow(index.active, (n) => new Uint8Array(n));
  index.visible = grow(index.visible, (n) => new Uint8Array(n));
  index.lengths = grow(index.lengths, (n) => new Float64Array(n));
}

function appendPostings(list: LexemePostings, delta: LexemePostings) {
  const needed = list.length + delta.length;
  if (list.docs.length < needed) {
    const capacity = Math.max(needed, Math.ceil(list.docs.length * 1.5) + 4);
    const docs = new Int32Array(capacity);
    const tfs = new Float64Array(capacity);
    docs.set(list.docs.subarray(0, list.length));
    tfs.set(list.tfs.subarray(0, list.length));
    list.docs = docs;
    list.tfs = tfs;
  }
  list.docs.set(delta.docs, list.length);
  list.tfs.set(delta.tfs, list.length);
  list.length = needed;
}

function decodePostings(row: LexicalIndexRow, base: number): LexemePostings {
  const ords = viewOf(row.ords!);
  const frequencies = viewOf(row.tfs!);
  const docs = new Int32Array(ords.byteLength / 4);
  const tfs = new Float64Array(docs.length);
  for (let at = 0; at < docs.length; at++) {
    docs[at] = base + ords.getInt32(at * 4);
    tfs[at] = frequencies.getFloat64(at * 8);
  }
  return { docs, tfs, length: docs.length };
}

/** A big-endian reader over the bytes (DataView's getters read big-endian unless told otherwise). */
function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * BM25's idf by (N, df), as the database computes it (`ln`; JavaScript's Math.log may differ in the
 * last bit). Filled by whole reads and by asking the database for the pairs a search lacks; shared by
 * every scope, since the value depends on the two numbers only. Bounded: cleared when full.
 */
export class IdfTable {
  readonly #values = new Map<string, number>();
  readonly #max: number;

  constructor(max = 200_000) {
    this.#max = max;
  }

  get(n: number, df: number): number | undefined {
    return this.#values.get(`${n}:${df}`);
  }

  learn(n: number, df: number, idf: number): void {
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(`${n}:${df}`, idf);
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.#values.size * 80;
  }
}

/**
 * BM25 over an index held in memory, computed exactly as the lexical statement computes it, so that
 * both give the same candidates in the same order and the same scores, to the bit: each lexeme's idf
 * as the database computes it (`idfs`, aligned with `lexemes`; undefined where no visible projection
 * holds the lexeme), the rest of the formula in float8
 * (JavaScript numbers), each candidate's terms summed in the order of `lexemes` (the statement sums them
 * in lexeme order: the caller passes the query's distinct lexemes as the database sorted them), the
 * limit's score found over every scored visible projection, then the active ones at or above it
 * ordered by score, entry id and version id (UUIDs compare as their lowercase hex text does).
 */
export function scoreLexicalIndex(
  index: ScopeLexicalIndex,
  lexemes: readonly string[],
  idfs: readonly number[],
  limit: number,
  { k1, b, delta }: Bm25Parameters,
  /** RFC 0014: only the versions it keeps are ranked, as the statement's filter at its scoring step. */
  keep?: (entryVersionId: string) => boolean,
): LexicalCandidate[] {
  const scores = new Float64Array(index.docCount);
  const matched = new Int32Array(index.docCount);
  let touched: number[] = [];
  const averageLength = Math.max(index.averageLength, 1e-9);
  const { visible, lengths } = index;
  for (let term = 0; term < lexemes.length; term++) {
    const list = index.postings.get(lexemes[term]!);
    const idf = idfs[term];
    if (!list || idf === undefined) continue;
    for (let at = 0; at < list.length; at++) {
      const doc = list.docs[at]!;
      if (visible[doc] === 0) continue;
      const tf = list.tfs[at]!;
      const part =
        idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[doc]!) / averageLength)) + delta);
      if (matched[doc] === 0) {
        touched.push(doc);
        scores[doc] = part;
      } else {
        scores[doc]! += part;
      }
      matched[doc]! += 1;
    }
  }
  if (keep) {
    const ids = index.entryVersionIds;
    touched = touched.filter((doc) => keep(ids[doc]!));
  }
  if (touched.length === 0) return [];
  const kept = Math.max(limit, 1);
  let threshold = Number.NEGATIVE_INFINITY;
  if (touched.length >= kept) {
    const ranked = touched.map((doc) => scores[doc]!).sort((left, right) => right - left);
    threshold = ranked[kept - 1]!;
  }
  const { entryIds, entryVersionIds } = index;
  return touched
    .filter((doc) => scores[doc]! >= threshold && index.active[doc] === 1)
    .sort(
      (left, right) =>
        scores[right]! - scores[left]! ||
        compareText(entryIds[left]!, entryIds[right]!) ||
        compareText(entryVersionIds[left]!, entryVersionIds[right]!),
    )
    .slice(0, limit)
    .map((doc, at) => ({
      entryId: entryIds[doc]!,
      entryVersionId: entryVersionIds[doc]!,
      rank: at + 1,
      score: scores[doc]!,
      matchedTerms: matched[doc]!,
    }));
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
