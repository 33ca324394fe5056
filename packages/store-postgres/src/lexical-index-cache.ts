import { type Bm25Parameters, CpuSlice, type LexicalCandidate } from '@powercontext/memory-core';
import { ScopeIndexCache } from './scope-index-cache.js';

/**
 * An in-process copy of one scope's lexical index as it stood at one revision: every projection
 * visible at that revision (its entry, version, state and length) and, per lexeme, the projections
 * that hold it with their term frequencies, plus the BM25 figures (N, average length) the statement
 * would use at that revision. Read from the database in one statement (`readLexicalIndex`); PostgreSQL
 * stays the one source of truth, and this is only a faster way to compute what the lexical statement
 * computes (RFC 0002, "The lexical index in memory").
 */
export interface ScopeLexicalIndex {
  scopeId: string;
  revision: number;
  /** The scope's newest purge revision when the index was read (null: none). A purge rewrites the past. */
  purgeMark: number | null;
  /** BM25's N and average document length at the revision, as the lexical statement takes them. */
  projections: number;
  averageLength: number;
  entryIds: string[];
  entryVersionIds: string[];
  /** 1 where the projection's version is active. */
  active: Uint8Array;
  lengths: Float64Array;
  /** Per lexeme: its idf at the revision (computed by the database), and its postings. */
  postings: Map<string, LexemePostings>;
  /** Postings held, the unit of the cache's budget. */
  size: number;
  /** Searches answered from it so far. */
  uses: number;
}

export interface LexemePostings {
  idf: number;
  docs: Int32Array;
  tfs: Float64Array;
}

export interface LexicalIndexCacheOptions {
  /** Postings (one per lexeme and projection) the cache may hold over all scopes. Default 8,000,000. */
  maxPostings?: number;
  /**
   * Searches of a scope at one revision before its index is read: at least this many, and one more per
   * 50,000 of the scope's total projection length (BM25's N times its average length, about the words
   * indexed, neighbours' included), so that a large index is read only where it is searched enough to
   * pay for the read. Default 2.
   */
  minSearches?: number;
}

const DEFAULT_MAX_POSTINGS = 8_000_000;
const DEFAULT_MIN_SEARCHES = 2;
const LENGTH_PER_EXTRA_SEARCH = 50_000;

/**
 * The lexical indexes of the scopes searched most recently, one revision per scope, within a budget of
 * postings (least recently used first out), read by the rule of ScopeIndexCache. Keyed by (scope,
 * revision) and checked against the scope's purge mark on every use, so it never answers for a
 * revision it does not hold: a write makes a new revision (a miss, so the statement answers), and a
 * purge, which rewrites old revisions, drops it.
 */
export class LexicalIndexCache {
  readonly #cache: ScopeIndexCache<ScopeLexicalIndex>;

  constructor(options: LexicalIndexCacheOptions = {}) {
    this.#cache = new ScopeIndexCache({
      maxSize: options.maxPostings ?? DEFAULT_MAX_POSTINGS,
      minSearches: options.minSearches ?? DEFAULT_MIN_SEARCHES,
      weightPerExtraSearch: LENGTH_PER_EXTRA_SEARCH,
    });
  }

  /** Lexical searches answered from memory, and indexes read, since the cache was made. */
  get counts(): { readonly answered: number; readonly read: number } {
    return this.#cache.counts;
  }

  /** The scope's index at exactly `revision`, if held; counts as a use of it. */
  lookup(scopeId: string, revision: number): ScopeLexicalIndex | undefined {
    return this.#cache.lookup(scopeId, revision);
  }

  /** Counts a search answered from memory. */
  answered(): void {
    this.#cache.answered();
  }

  /**
   * Counts a search the statement answered; true when the scope's index at this revision should now be
   * read (the caller reads it and hands it to `hold`, or calls `readFailed`): after 2 searches at the
   * revision plus one per 50,000 of the scope's total projection length, one read per scope at a time,
   * with ScopeIndexCache's cool-down between reads.
   */
  missed(scopeId: string, revision: number, totalLength: number): boolean {
    return this.#cache.missed(scopeId, revision, totalLength);
  }

  hold(index: ScopeLexicalIndex): void {
    this.#cache.hold(index.scopeId, index);
  }

  readFailed(scopeId: string): void {
    this.#cache.readFailed(scopeId);
  }

  drop(scopeId: string): void {
    this.#cache.drop(scopeId);
  }

  clear(): void {
    this.#cache.clear();
  }
}

/**
 * BM25 over an index held in memory, computed exactly as the lexical statement computes it, so that
 * both give the same candidates in the same order and the same scores, to the bit: each lexeme's idf
 * as the database computed it (`ln`), the rest of the formula in float8 (JavaScript numbers),
 * each candidate's terms summed in the order of `lexemes` (the statement sums them in lexeme order:
 * the caller passes the query's distinct lexemes as the database sorted them), the limit's score
 * found over every scored projection, then the active ones at or above it ordered by score, entry id
 * and version id (UUIDs compare as their lowercase hex text does).
 */
export function scoreLexicalIndex(
  index: ScopeLexicalIndex,
  lexemes: readonly string[],
  limit: number,
  { k1, b, delta }: Bm25Parameters,
): LexicalCandidate[] {
  const scores = new Float64Array(index.entryIds.length);
  const matched = new Int32Array(index.entryIds.length);
  const touched: number[] = [];
  const averageLength = Math.max(index.averageLength, 1e-9);
  for (const lexeme of lexemes) {
    const list = index.postings.get(lexeme);
    if (!list) continue;
    const { idf } = list;
    const df = list.docs.length;
    for (let at = 0; at < df; at++) {
      const doc = list.docs[at]!;
      const tf = list.tfs[at]!;
      const part =
        idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * index.lengths[doc]!) / averageLength)) + delta);
      if (matched[doc] === 0) {
        touched.push(doc);
        scores[doc] = part;
      } else {
        scores[doc]! += part;
      }
      matched[doc]! += 1;
    }
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

/**
 * One row of the statement that reads an index (`readLexicalIndex`): the figures (`value` is N), a
 * projection (`value` is its length) or a lexeme (`value` is its idf).
 */
export interface LexicalIndexRow {
  kind: 'stats' | 'doc' | 'lexeme';
  ord: number | null;
  entry_version_id: string | null;
  entry_id: string | null;
  active: boolean | null;
  value: number | null;
  average_length: number | null;
  lexeme: string | null;
  /** The projections' numbers, big-endian int4 each. */
  ords: Uint8Array | null;
  /** Their term frequencies, big-endian float8 each. */
  tfs: Uint8Array | null;
  purged: number | null;
}

/**
 * Builds the in-memory index from the rows of one read, taking turns with the process's other CPU
 * work (CpuSlice): at 10,000 entries there are half a million postings to copy into typed arrays.
 */
export async function lexicalIndexOf(
  scopeId: string,
  revision: number,
  rows: readonly LexicalIndexRow[],
): Promise<ScopeLexicalIndex> {
  const slice = new CpuSlice();
  const docs = rows.filter((row) => row.kind === 'doc');
  const entryIds = new Array<string>(docs.length);
  const entryVersionIds = new Array<string>(docs.length);
  const active = new Uint8Array(docs.length);
  const lengths = new Float64Array(docs.length);
  for (const row of docs) {
    const ord = row.ord!;
    entryIds[ord] = row.entry_id!;
    entryVersionIds[ord] = row.entry_version_id!;
    active[ord] = row.active ? 1 : 0;
    lengths[ord] = Number(row.value);
  }
  const postings = new Map<string, LexemePostings>();
  let size = 0;
  for (const row of rows) {
    await slice.check();
    if (row.kind !== 'lexeme') continue;
    const ords = viewOf(row.ords!);
    const frequencies = viewOf(row.tfs!);
    const docs = new Int32Array(ords.byteLength / 4);
    const tfs = new Float64Array(docs.length);
    for (let at = 0; at < docs.length; at++) {
      docs[at] = ords.getInt32(at * 4);
      tfs[at] = frequencies.getFloat64(at * 8);
    }
    postings.set(row.lexeme!, { idf: Number(row.value), docs, tfs });
    size += docs.length;
  }
  const stats = rows.find((row) => row.kind === 'stats');
  return {
    scopeId,
    revision,
    purgeMark: stats?.purged ?? null,
    projections: Number(stats?.value ?? 0),
    averageLength: Number(stats?.average_length ?? 0),
    entryIds,
    entryVersionIds,
    active,
    lengths,
    postings,
    size,
    uses: 0,
  };
}

/** A big-endian reader over the bytes (DataView's getters read big-endian unless told otherwise). */
function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
