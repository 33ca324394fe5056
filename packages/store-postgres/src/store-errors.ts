import { PowerContextError, StoreIncompatibleError, StoreUnavailableError } from '@powercontext/memory-core';

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
    // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now; 53300: too many connections;
    // 57014 and 55P03: a statement cancelled by statement_timeout or lock_timeout (a database too slow to
    // answer within the store's bound, RFC 0005).
    if (
      CONNECTION_ERRNO.has(code) ||
      code.startsWith('08') ||
      /^57P0[1-3]$/.test(code) ||
      code === '53300' ||
      code === '57014' ||
      code === '55P03'
    )
      return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/.test(
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

/**
 * Which database a connection string names, for error messages: database, host, port and role,
 * never the password (nor any other parameter of the URL).
 */
export function describeConnectionTarget(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return 'the PostgreSQL database of the connection string (not a postgres:// URL)';
  }
  const user = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//u, '')) || user || 'postgres';
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  return `database "${database}" on ${host}:${url.port || '5432'}${user ? ` as role "${user}"` : ''}`;
}

/** What went wrong, in words, from a driver or server error (server messages never hold passwords). */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is PostgreSQL running and listening on that port?)';
    case 'ENOTFOUND':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
      return 'the host is unreachable';
    case '3D000':
      return `the database does not exist (${text})`;
    case '28P01':
    case '28000':
      return `authentication failed (${text})`;
    case '42501':
      return `the role lacks a privilege the schema needs (${text})`;
    default:
      if (/timeout exceeded when trying to connect/u.test(text)) return 'the connection timed out';
      return typeof code === 'string' ? `${text} (SQLSTATE ${code})` : text;
  }
}

/**
 * The error of a store that could not be opened, naming the database, the host and what failed: an
 * unreachable server stays the retryable StoreUnavailableError, anything else (no such database,
 * a refused role, a failed migration) is StoreIncompatibleError. The original error is the cause.
 */
export function openFailure(error: unknown, connectionString: string): Error {
  const target = describeConnectionTarget(connectionString);
  if (
    error instanceof StoreUnavailableError ||
    (!PowerContextError.isInstance(error) && isUnavailable(error))
  ) {
    const cause = error instanceof StoreUnavailableError ? (error.cause ?? error) : error;
    return new StoreUnavailableError(`Cannot reach PostgreSQL, ${target}: ${reasonOf(cause)}`, { cause });
  }
  if (error instanceof StoreIncompatibleError) {
    const cause = error.cause;
    const code = (cause as { code?: unknown } | undefined)?.code;
    const detail =
      typeof code === 'string' ? `${error.message.split(':')[0]}: ${reasonOf(cause)}` : error.message;
    return new StoreIncompatibleError(`Cannot open ${target}: ${detail}`, { cause: cause ?? error });
  }
  if (PowerContextError.isInstance(error)) return error;
  return new StoreIncompatibleError(`Cannot open ${target}: ${reasonOf(error)}`, { cause: error });
}
