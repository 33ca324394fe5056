import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { executePrepared, literal } from './prepared.js';

let db: Kysely<Database>;
let release: () => void;
beforeAll(async () => {
  const opened = await openPGlite(undefined);
  release = opened.release;
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

  it('refuses arguments it cannot write as a literal', () => {
    expect(() => literal(Number.NaN)).toThrow(TypeError);
    expect(() => literal(null)).toThrow(TypeError);
    expect(literal(0.5)).toBe("'0.5'");
  });
});
