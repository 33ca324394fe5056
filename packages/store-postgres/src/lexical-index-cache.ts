import type { ScopeLexicalIndex } from './lexical-index.js';
import { ScopeIndexCache, type ScopeIndexCounts } from './scope-index-cache.js';

export interface LexicalIndexCacheOptions {
  /**
   * Bytes the cache may hold over all scopes, as estimated by `lexicalIndexBytes` (about 12 per
   * posting, 200 per projection). Default 192 MiB.
   */
  maxBytes?: number;
  /**
   * Searches of a scope at one revision before its index is read: at least this many, and one more per
   * 50,000 of the scope's total projection length (BM25's N times its average length, about the words
   * indexed, neighbours' included), so that a large index is read only where it is searched enough to
   * pay for the read. Default 2.
   */
  minSearches?: number;
}

const DEFAULT_MAX_BYTES = 192 * 1024 * 1024;
const DEFAULT_MIN_SEARCHES = 2;
const LENGTH_PER_EXTRA_SEARCH = 50_000;

/**
 * The lexical indexes of the scopes searched most recently, one revision per scope, within a budget of
 * bytes (least recently used first out), read by the rule of ScopeIndexCache. An index answers only
 * for the revision it holds and is checked against the scope's purge mark on every use: a write makes
 * a new revision, which the lexical channel reaches by the write's delta (`applyLexicalDelta`), and a
 * purge, which rewrites old revisions, drops it.
 */
export class LexicalIndexCache {
  readonly #cache: ScopeIndexCache<ScopeLexicalIndex>;

  constructor(options: LexicalIndexCacheOptions = {}) {
    this.#cache = new ScopeIndexCache({
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      minSearches: options.minSearches ?? DEFAULT_MIN_SEARCHES,
      weightPerExtraSearch: LENGTH_PER_EXTRA_SEARCH,
    });
  }

  /** Lexical searches answered from memory, indexes read and caught up, since the cache was made. */
  get counts(): Readonly<ScopeIndexCounts> {
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

  /** The scope's index at whatever revision it holds, if any (not a use). */
  latest(scopeId: string): ScopeLexicalIndex | undefined {
    return this.#cache.latest(scopeId);
  }

  /** The index grew or shrank in place from `previousSize` (a delta); evicts others to stay in budget. */
  resized(index: ScopeLexicalIndex, previousSize: number): void {
    this.#cache.resized(index.scopeId, previousSize);
  }

  caughtUp(milliseconds: number): void {
    this.#cache.caughtUp(milliseconds);
  }

  /** The most bytes one index may take (the budget, or its share of it). */
  get maxIndexBytes(): number {
    return this.#cache.maxIndexSize;
  }

  hold(index: ScopeLexicalIndex): void {
    this.#cache.hold(index.scopeId, index);
  }

  /** The scope's index is over its share of the budget: not read. */
  refused(scopeId: string): void {
    this.#cache.refused(scopeId);
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
