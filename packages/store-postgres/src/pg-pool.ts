import type { Pool, PoolClient, PoolConfig } from 'pg';
import type { DatabaseBounds } from './database-bounds.js';

/**
 * The client waits this much longer than statement_timeout before it gives a query up: a database
 * that answers cancels the statement itself first (57014), and only a database that does not answer
 * at all (a hung connection) meets the client-side bound.
 */
export const CLIENT_MARGIN_MS = 250;

/** The message of the error a query gets when the connection did not answer within the bound. */
export const HUNG_CONNECTION_MESSAGE = 'Query read timeout';

/** The pool settings that follow from the bounds: timeouts, and TCP keepalive on every connection. */
export function poolConfig(
  connectionString: string,
  maxConnections: number,
  bounds: DatabaseBounds,
): PoolConfig {
  return {
    connectionString,
    max: maxConnections,
    connectionTimeoutMillis: Math.min(5_000, bounds.statementTimeoutMs + CLIENT_MARGIN_MS),
    statement_timeout: bounds.statementTimeoutMs,
    lock_timeout: bounds.lockTimeoutMs,
    query_timeout: bounds.statementTimeoutMs + CLIENT_MARGIN_MS,
    // A peer that vanished without closing (a dead host, a dropped NAT entry) is found by the kernel.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * The pool as kysely's dialect sees it, with one rule added: a connection on which a query met the
 * client-side bound is broken for good. Its socket is destroyed at once, later queries on it fail at
 * once (so a transaction's ROLLBACK does not wait out the bound a second time), and it leaves the pool
 * when released, instead of going back with a query still pending on it.
 */
export function guardedPool(pool: Pool): { connect(): Promise<PoolClient>; end(): Promise<void> } {
  const guarded = new WeakMap<PoolClient, PoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = guarded.get(client);
      if (!wrapper) {
        wrapper = guard(client);
        guarded.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

function guard(client: PoolClient): PoolClient {
  let broken = false;
  const hung = () => Object.assign(new Error(HUNG_CONNECTION_MESSAGE), { code: 'ETIMEDOUT' });
  const query = (...args: unknown[]) => {
    if (broken) return Promise.reject(hung());
    const result = (client.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        if ((error as Error | undefined)?.message === HUNG_CONNECTION_MESSAGE) {
          broken = true;
          (
            client as unknown as { connection?: { stream?: { destroy(): void } } }
          ).connection?.stream?.destroy();
          throw Object.assign(error as Error, { code: 'ETIMEDOUT' });
        }
        throw error;
      });
    }
    return result;
  };
  const release = (destroy?: boolean | Error) => client.release(broken ? true : destroy);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'query') return query;
      if (property === 'release') return release;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
