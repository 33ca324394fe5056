import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database.js';

/**
 * Runs a statement as a server-side prepared statement (`PREPARE` once per connection, then
 * `EXECUTE`), so PostgreSQL stops planning it on every call. Measured on PGlite at 600 entries per
 * scope: planning the lexical statement took 38-71 ms, executing it 3 ms. After five executions
 * PostgreSQL may keep a generic plan; the statements given here pin their shape with MATERIALIZED
 * steps, so a generic plan is the same plan. The statement is named after a hash of its text.
 *
 * `EXECUTE` takes no bind parameters, so the arguments are sent as quoted literals (escaped string
 * constants, coerced to the parameter types PREPARE inferred): only strings and finite numbers.
 *
 * A statement this `db` has never prepared is prepared before its first `EXECUTE`, which could only
 * fail: a short-lived command saves a round trip and an error per statement. Afterwards `EXECUTE` comes
 * first; a pooled connection that has not prepared it yet answers "does not exist" and prepares it then.
 */
export async function executePrepared<R>(db: Kysely<Database>, statement: RawBuilder<R>): Promise<R[]> {
  const compiled = statement.compile(db);
  const name = `pc_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 24)}`;
  const call = sql.raw<R>(`EXECUTE ${name}(${compiled.parameters.map(literal).join(', ')})`);
  const prepared = preparedBy.get(db) ?? new Set<string>();
  preparedBy.set(db, prepared);
  const seen = prepared.has(name);
  const rows = await db.connection().execute(async (connection) => {
    if (seen) {
      try {
        return (await call.execute(connection)).rows;
      } catch (error) {
        if (sqlState(error) !== UNDEFINED_PREPARED_STATEMENT) throw error;
      }
    }
    try {
      await sql.raw(`PREPARE ${name} AS ${compiled.sql}`).execute(connection);
    } catch (error) {
      // Prepared on this connection already: by another caller in between, or by an earlier handle.
      if (sqlState(error) !== DUPLICATE_PREPARED_STATEMENT) throw error;
    }
    return (await call.execute(connection)).rows;
  });
  prepared.add(name);
  return rows;
}

/** The statement names each database handle has prepared, on at least one of its connections. */
const preparedBy = new WeakMap<Kysely<Database>, Set<string>>();

const UNDEFINED_PREPARED_STATEMENT = '26000';
const DUPLICATE_PREPARED_STATEMENT = '42P05';

function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** A parameter as an escaped string constant (E'...'), whatever standard_conforming_strings is. */
export function literal(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new TypeError(`a prepared statement argument must be finite, got ${value}`);
    return `'${value}'`;
  }
  if (typeof value === 'string') return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  throw new TypeError(`a prepared statement argument must be a string or a number, got ${typeof value}`);
}
