/**
 * Fair turns for CPU-bound work that shares one event loop (hashing, tokenizing, packing).
 *
 * A task that has worked for a while calls `nextTurn()` and waits in one queue with every other such
 * task of the process. Each event-loop iteration resumes exactly one waiter, so however many requests
 * are busy at once, the loop does about one slice of their work between two rounds of I/O. With a
 * private `setImmediate` per task instead, N busy requests add N slices to every iteration, and a
 * health check that needs three iterations (accept, read, write) waits 3 x N slices.
 *
 * Works wherever `setImmediate` exists (Node); elsewhere it falls back to a zero timeout.
 */

/** How long a task should work before it asks for its next turn. */
export const CPU_SLICE_MS = 4;

const waiting: (() => void)[] = [];
let pumping = false;

const later: (callback: () => void) => void =
  typeof setImmediate === 'function'
    ? (callback) => setImmediate(callback)
    : (callback) => setTimeout(callback, 0);

/** Resolves in a later event-loop iteration, after every task that asked before it had its turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      later(pump);
    }
  });
}

function pump(): void {
  const resume = waiting.shift();
  // Scheduled from inside this callback, the next pump runs in the next iteration, after I/O.
  if (waiting.length > 0) later(pump);
  else pumping = false;
  resume?.();
}

/**
 * A running task's clock: `check()` waits for the next turn once the task has worked CPU_SLICE_MS
 * since its last turn, and throws the signal's reason if it was aborted meanwhile.
 */
export class CpuSlice {
  #start = performance.now();
  readonly #signal: AbortSignal | undefined;

  constructor(signal?: AbortSignal) {
    this.#signal = signal;
  }

  /** True when the task has used its slice and should call `check()` (or `yield()`) soon. */
  get spent(): boolean {
    return performance.now() - this.#start >= CPU_SLICE_MS;
  }

  async check(): Promise<void> {
    if (this.spent) await this.yield();
  }

  /** Waits for the next turn now, whatever the clock says. */
  async yield(): Promise<void> {
    this.#signal?.throwIfAborted();
    await nextTurn();
    this.#signal?.throwIfAborted();
    this.#start = performance.now();
  }
}
