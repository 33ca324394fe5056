/**
 * Cooperative interruption of a case (Ctrl-C, or SIGTERM from the benchmark's parent process): the
 * first signal only sets a flag, and the case's loops stop at their next `yieldToEventLoop()` with an
 * `InterruptedError`, so their `finally` blocks close the runtime and remove the temporary data dir or
 * drop the throw-away database as on any other failure. Later signals are ignored.
 */
let interruptedBy: NodeJS.Signals | undefined;

export class InterruptedError extends Error {
  override name = 'InterruptedError';
}

/** Turns SIGINT and SIGTERM into the flag the case's loops check. */
export function stopOnSignals(): void {
  const onSignal = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * Lets the event loop run timers, I/O and signal handlers, then throws `InterruptedError` once a
 * signal arrived. PGlite answers queries without returning to the event loop, so a loop of awaited
 * remember or search calls would otherwise hold it until the loop ends. Called between measured
 * calls, never inside a timed region.
 */
export async function yieldToEventLoop(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (interruptedBy) throw new InterruptedError(`interrupted by ${interruptedBy}`);
}
