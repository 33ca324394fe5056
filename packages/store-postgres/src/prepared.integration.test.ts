import { Kysely, type LogEvent, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { executePrepared, literal } from './prepared.js';

let db: Kysely<Database>;
let pglite: Awaited<ReturnType<typeof openPGlite>>['pglite'];
let release: () => void;
beforeAll(async () => {
  const opened = await openPGlite(undefined);
  release = opened.release;
  pglite = opened.pglite;
  db = new Kysely<Database>({ dialect: createPGliteDialect(opened.pglite) });
});
afterAll(async () => {
  await db?.destroy();
  release?.();
});

describe('prepared statements', () => {
  it('pass every argument through unchanged, quotes and backslashes included, on every call', async () => {
    const odd = ["it's", 'back\\slash \\n', "'; DROP TABLE pc_memories; --", 'ünïcödé 🦀', ''];
    for (let round = 0; round < 7; round++) {
      for (const text of odd) {
        const rows = await executePrepared(
          db,
          sql<{ text: string; n: number }>`SELECT ${text}::text AS text, ${round}::int + 1 AS n`,
        );
        expect(rows).toEqual([{ text, n: round + 1 }]);
      }
    }
    const prepared = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(
      db,
    );
    expect(prepared.rows[0]!.n).toBe(1);
  });

  it('prepare before the first EXECUTE of a handle, and execute first afterwards', async () => {
    const statements: string[] = [];
    const record = (event: LogEvent) => {
      statements.push(`${event.level === 'error' ? 'failed ' : ''}${event.query.sql.split(' ')[0]}`);
    };
    const logged = new Kysely<Database>({
      dialect: createPGliteDialect(pglite),
      log: record,
    });
    const statement = sql<{ n: number }>`SELECT ${41}::int + 1 AS n`;
    expect(await executePrepared(logged, statement)).toEqual([{ n: 42 }]);
    expect(statements).toEqual(['PREPARE', 'EXECUTE']);
    statements.length = 0;
    expect(await executePrepared(logged, statement)).toEqual([{ n: 42 }]);
    expect(statements).toEqual(['EXECUTE']);
    // Another handle on the same session: PREPARE finds the statement there already and goes on.
    statements.length = 0;
    const other = new Kysely<Database>({
      dialect: createPGliteDialect(pglite),
      log: record,
    });
    expect(await executePrepared(other, statement)).toEqual([{ n: 42 }]);
    expect(statements).toEqual(['failed PREPARE', 'EXECUTE']);
  });

  it('prepare again on a session that lost the statement', async () => {
    const statement = sql<{ n: number }>`SELECT ${1}::int + ${2}::int AS n`;
    expect(await executePrepared(db, statement)).toEqual([{ n: 3 }]);
    await sql`DEALLOCATE ALL`.execute(db);
    expect(await executePrepared(db, statement)).toEqual([{ n: 3 }]);
  });

  it('refuses arguments it cannot write as a literal', () => {
    expect(() => literal(Number.NaN)).toThrow(TypeError);
    expect(() => literal(null)).toThrow(TypeError);
    expect(literal(0.5)).toBe("'0.5'");
  });
});
