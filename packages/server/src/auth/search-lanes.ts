import { availableParallelism } from 'node:os';

/**
 * Searches and context preparations this process runs at once unless
 * POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES says otherwise: the cores it may use, and at least 2.
 */
export const DEFAULT_SEARCH_LANES = Math.max(2, availableParallelism());

/** Gives back a lane; calling it again does nothing. */
export type LaneRelease = () => void;

interface Waiter {
  take: () => void;
  abandon: () => void;
}

/**
 * At most `lanes` searches (and context preparations) run at once in this process; the rest wait for
 * a lane instead of piling CPU work onto the cores that the database, the packing and every other
 * request share. Each search keeps a core busy: its statements in the database, then packing in this
 * process. Issue 19 measured, on 2 cores, one key's four concurrent costly preparations holding a
 * health check up to 186 ms; two at a time, 57 ms at most (RFC 0005, "Search lanes").
 *
 * Waiters are served in turn by key, not first come first served: a key with many searches queued
 * waits behind a key with one, so one tenant's burst delays another's search by about one search.
 * A waiter whose signal aborts (request timeout, client gone) leaves the queue with the signal's
 * reason. The keys' in-flight slots still bound how much one key may queue.
 */
export class SearchLanes {
  readonly lanes: number;
  #running = 0;
  /** Waiters per key, in the order keys first queued; a key leaves when its queue empties. */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(lanes = DEFAULT_SEARCH_LANES) {
    if (!Number.isInteger(lanes) || lanes < 1) throw new RangeError('lanes must be a positive integer');
    this.lanes = lanes;
  }

  /** Searches waiting for a lane now. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.#queues.values()) count += queue.length;
    return count;
  }

  /** Resolves with the release of a lane once `key` may run a search; rejects if `signal` aborts first. */
  enter(key: string, signal?: AbortSignal): Promise<LaneRelease> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#running < this.lanes && this.#queues.size === 0) return Promise.resolve(this.#take());
    return new Promise<LaneRelease>((resolve, reject) => {
      const waiter: Waiter = {
        take: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#take());
        },
        abandon: () => reject(signal?.reason),
      };
      const onAbort = () => {
        const queue = this.#queues.get(key);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.#queues.delete(key);
        }
        waiter.abandon();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#queues.get(key);
      if (queue) queue.push(waiter);
      else this.#queues.set(key, [waiter]);
    });
  }

  /** Runs `work` in a lane of `key`'s turn, and gives the lane back however it ends. */
  async run<T>(key: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    const release = await this.enter(key, signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  #take(): LaneRelease {
    this.#running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      this.#next();
    };
  }

  /** Hands a free lane to the first waiter of the key that queued earliest, and moves that key last. */
  #next(): void {
    if (this.#running >= this.lanes) return;
    const first = this.#queues.entries().next();
    if (first.done) return;
    const [key, queue] = first.value;
    const waiter = queue.shift()!;
    this.#queues.delete(key);
    if (queue.length > 0) this.#queues.set(key, queue);
    waiter.take();
  }
}
