/**
 * What a cache of per-scope indexes needs of an index: the revision it describes, its size in the
 * cache's budget unit, and how many searches it has answered.
 */
export interface CachedIndex {
  revision: number;
  size: number;
  uses: number;
}

export interface ScopeIndexCounts {
  answered: number;
  read: number;
  caughtUp: number;
  catchUpMs: number;
  refused: number;
}

export interface ScopeIndexCacheOptions {
  /** The budget over all held indexes, in the indexes' size unit (least recently used out). */
  maxSize: number;
  /**
   * The share of the budget one index may take (default 1/4): a larger one is not held, and its read
   * is abandoned, so one scope can push out at most this much of the others' indexes.
   */
  maxShare?: number;
  /** Searches of a key at one revision before its index is read: at least this many... */
  minSearches: number;
  /** ...and one more per this much of the caller's weight (about the cost of the read). */
  weightPerExtraSearch: number;
}

/** After a read, a key waits this many times the read's duration before the next. */
const READ_COOL_DOWN = 10;
const MAX_BACKOFF_DOUBLINGS = 6;
const MAX_TRACKED_KEYS = 10_000;
const DEFAULT_MAX_SHARE = 0.25;

/**
 * In-memory indexes of the scopes searched most recently, one revision per key, within a budget
 * (least recently used first out), and the rule for when to read one. Keyed by (key, revision): a
 * write makes a new revision, which is a miss, so the database answers. What else can change a
 * revision's past (a purge) is the caller's to check on every use. The lexical index (per scope) and
 * the vector index (per scope and embedding profile) share this (RFC 0002, "Indexes in memory").
 */
export class ScopeIndexCache<T extends CachedIndex> {
  readonly #options: ScopeIndexCacheOptions;
  /** Key -> its index; Map order is the use order (a use moves it last). */
  readonly #indexes = new Map<string, T>();
  /** Key -> what decides its next read: searches at one revision, a read in flight, a cool-down. */
  readonly #keys = new Map<string, KeyReads>();
  #held = 0;
  /**
   * Searches answered from memory, indexes read, indexes moved forward by a delta (and the
   * milliseconds those catch-ups took), and reads refused for an index over its share, since the cache
   * was made.
   */
  readonly counts: ScopeIndexCounts = { answered: 0, read: 0, caughtUp: 0, catchUpMs: 0, refused: 0 };

  constructor(options: ScopeIndexCacheOptions) {
    this.#options = options;
  }

  /** The key's index at exactly `revision`, if held; counts as a use of it. */
  lookup(key: string, revision: number): T | undefined {
    const index = this.#indexes.get(key);
    if (!index || index.revision !== revision) return undefined;
    this.#indexes.delete(key);
    this.#indexes.set(key, index);
    index.uses += 1;
    return index;
  }

  /** The key's index at whatever revision it holds, if any; not a use. */
  latest(key: string): T | undefined {
    return this.#indexes.get(key);
  }

  /** The most one index may hold: its share of the budget. */
  get maxIndexSize(): number {
    return Math.floor(this.#options.maxSize * (this.#options.maxShare ?? DEFAULT_MAX_SHARE));
  }

  /**
   * The key's index changed size in place (it was moved forward by a delta); `previousSize` is what it
   * held before. It is dropped if it no longer fits at all, and the least recently used others go
   * until the budget holds.
   */
  resized(key: string, previousSize: number): void {
    const index = this.#indexes.get(key);
    if (!index) return;
    this.#held += index.size - previousSize;
    if (index.size > this.maxIndexSize) {
      this.drop(key);
      return;
    }
    for (const [heldKey, oldest] of this.#indexes) {
      if (this.#held <= this.#options.maxSize) break;
      if (heldKey === key) continue;
      this.#indexes.delete(heldKey);
      this.#held -= oldest.size;
    }
  }

  /** Counts an index moved forward by a delta, and how long that took. */
  caughtUp(milliseconds: number): void {
    this.counts.caughtUp += 1;
    this.counts.catchUpMs += milliseconds;
  }

  /** Counts a search answered from memory. */
  answered(): void {
    this.counts.answered += 1;
  }

  /**
   * Counts a search the database answered; true when the key's index at this revision should now be
   * read (the caller reads it and hands it to `hold`, or calls `readFailed`). Besides the searches the
   * read must pay for, one read runs per key at a time, and after a read the key waits ten times its
   * duration before the next, doubled for each read in a row whose index answered no search before the
   * scope moved on (a scope written between its searches): reads stay a small share of the database's
   * time whatever the workload.
   */
  missed(key: string, revision: number, weight: number): boolean {
    let reads = this.#keys.get(key);
    if (!reads) {
      if (this.#keys.size >= MAX_TRACKED_KEYS) this.#forgetIdleKey();
      reads = { revision, count: 0, reading: false, startedAt: 0, notBefore: 0, wasted: 0 };
      this.#keys.set(key, reads);
    }
    if (reads.revision !== revision) {
      reads.revision = revision;
      reads.count = 0;
    }
    reads.count += 1;
    const needed = this.#options.minSearches + Math.floor(weight / this.#options.weightPerExtraSearch);
    const now = performance.now();
    if (reads.count < needed || reads.reading || now < reads.notBefore) return false;
    reads.reading = true;
    reads.startedAt = now;
    return true;
  }

  /** Holds a read index (within the budget; one larger than its share of it is not held). */
  hold(key: string, index: T): void {
    this.counts.read += 1;
    const previous = this.#indexes.get(key);
    const reads = this.#keys.get(key);
    if (reads) {
      if (previous) reads.wasted = previous.uses === 0 ? reads.wasted + 1 : 0;
      this.#readEnded(reads);
    }
    if (index.size > this.maxIndexSize) return;
    // A read that started before the held index was moved past its revision is older: keep the newer.
    if (previous && previous.revision > index.revision) return;
    this.drop(key);
    this.#indexes.set(key, index);
    this.#held += index.size;
    for (const [heldKey, oldest] of this.#indexes) {
      if (this.#held <= this.#options.maxSize) break;
      this.#indexes.delete(heldKey);
      this.#held -= oldest.size;
    }
  }

  /** A read abandoned because the index is over its share of the budget; cools down as after a read. */
  refused(key: string): void {
    this.counts.refused += 1;
    this.readFailed(key);
  }

  /** A read that failed or found nothing worth holding: the key cools down as after a read. */
  readFailed(key: string): void {
    const reads = this.#keys.get(key);
    if (reads) this.#readEnded(reads);
  }

  drop(key: string): void {
    const index = this.#indexes.get(key);
    if (!index) return;
    this.#indexes.delete(key);
    this.#held -= index.size;
  }

  /** The held indexes whose key satisfies `test` (not a use). */
  heldWhere(test: (key: string) => boolean): T[] {
    return [...this.#indexes].flatMap(([key, index]) => (test(key) ? [index] : []));
  }

  /** Drops every held index whose key satisfies `test`. */
  dropWhere(test: (key: string) => boolean): void {
    for (const key of [...this.#indexes.keys()]) if (test(key)) this.drop(key);
  }

  clear(): void {
    this.#indexes.clear();
    this.#keys.clear();
    this.#held = 0;
  }

  #readEnded(reads: KeyReads): void {
    const now = performance.now();
    reads.reading = false;
    reads.notBefore =
      now + READ_COOL_DOWN * (now - reads.startedAt) * 2 ** Math.min(reads.wasted, MAX_BACKOFF_DOUBLINGS);
  }

  /** Makes room among the tracked keys: the one tracked longest with no read in flight goes. */
  #forgetIdleKey(): void {
    for (const [key, reads] of this.#keys) {
      if (reads.reading) continue;
      this.#keys.delete(key);
      return;
    }
  }
}

interface KeyReads {
  /** The revision the database's searches were counted at, and how many. */
  revision: number;
  count: number;
  reading: boolean;
  /** performance.now() when the last read started, and before which no new read starts. */
  startedAt: number;
  notBefore: number;
  /** Reads in a row whose index answered no search. */
  wasted: number;
}

/**
 * The whole reads of a store's indexes in memory that may run at once, over both caches (default 2).
 * A read holds a connection for as long as it takes (seconds at 10,000 entries), so without a bound a
 * cold start over many scopes took the whole pool from the searches (issue 28: 503s in the first 20 s
 * under 32 clients). A read that finds no room does not start; the scope's next search asks again.
 */
export class BackgroundReads {
  readonly limit: number;
  #running = 0;
  /** The most reads that ran at once. */
  peak = 0;

  constructor(limit = 2) {
    this.limit = limit;
  }

  tryStart(): boolean {
    if (this.#running >= this.limit) return false;
    this.#running += 1;
    this.peak = Math.max(this.peak, this.#running);
    return true;
  }

  end(): void {
    this.#running -= 1;
  }
}

/** How `CatchUps.indexAt` reaches one key's index in its cache. */
export interface HeldIndex<T extends { revision: number }> {
  /** The index at exactly the revision asked for, if held (a use). */
  lookup(): T | undefined;
  /** The index at whatever revision it holds (not a use). */
  latest(): T | undefined;
  /** Moves `held` forward to the revision asked for, or drops it. */
  catchUp(held: T): Promise<void>;
}

/**
 * The catch-ups of a cache's indexes in flight, one per key: the searches of a key that find its index
 * behind their revision wait for the one delta read (RFC 0002, "Indexes that follow writes").
 */
export class CatchUps {
  readonly #pending = new Map<string, Promise<void>>();

  /**
   * The key's index at the revision: the one held there, or the one held at an older revision moved
   * forward. Undefined when none is held at or before it, or it could not follow. A search's (`use`)
   * counts as a use of the index; a write's follow does not.
   */
  async indexAt<T extends { revision: number }>(
    key: string,
    revision: number,
    index: HeldIndex<T>,
    use = true,
  ): Promise<T | undefined> {
    const atRevision = () => {
      if (use) return index.lookup();
      const held = index.latest();
      return held?.revision === revision ? held : undefined;
    };
    const exact = atRevision();
    if (exact) return exact;
    for (let attempts = 0; attempts < 3; attempts++) {
      const held = index.latest();
      if (!held || held.revision > revision) return undefined;
      if (held.revision === revision) return atRevision();
      let pending = this.#pending.get(key);
      if (!pending) {
        pending = index.catchUp(held).finally(() => this.#pending.delete(key));
        this.#pending.set(key, pending);
      }
      await pending;
    }
    return undefined;
  }
}
