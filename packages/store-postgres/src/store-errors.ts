import { PowerContextError, StoreUnavailableError } from '@powercontext/memory-core';

const CONNECTION_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/** True for failures that mean "the database is not reachable right now", not a bug or bad data. */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now; 53300: too many connections.
    if (CONNECTION_ERRNO.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300')
      return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      message,
    )
  );
}

/** Runs a store operation, turning connection failures into the typed, retryable StoreUnavailableError. */
export async function guardStoreErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (PowerContextError.isInstance(error) || !isUnavailable(error)) throw error;
    throw new StoreUnavailableError('The database is unavailable', { cause: error });
  }
}
