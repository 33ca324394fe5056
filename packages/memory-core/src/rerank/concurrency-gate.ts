/**
 * At most `maxInFlight` holders at once; others wait in FIFO order up to a timeout. Release is
 * idempotent. Used to bound concurrent model calls of the rerank stage.
 */
export class ConcurrencyGate {
  readonly maxInFlight: number;
  #inFlight = 0;
  readonly #waiters: { grant: () => void }[] = [];

  constructor(maxInFlight: number) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new RangeError('maxInFlight must be a positive integer');
    this.maxInFlight = maxInFlight;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Resolves with a release function once a slot is free, or with `undefined` when the wait reached
   * `timeoutMs` or the signal aborted first (the caller decides what that means).
   */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.#inFlight < this.maxInFlight && this.#waiters.length === 0) return Promise.resolve(this.#take());
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          cleanup();
          resolve(this.#take());
        },
      };
      const giveUp = () => {
        cleanup();
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(undefined);
      };
      const timer = setTimeout(giveUp, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #take(): () => void {
    this.#inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      this.#waiters.shift()?.grant();
    };
  }
}
