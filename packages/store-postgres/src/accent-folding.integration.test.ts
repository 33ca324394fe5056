import { foldAccents, foldableCharacters } from '@powercontext/memory-core/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPGlite } from './pglite/open-pglite.js';
import { createTestDatabase } from './testing-support/test-database.js';

const SAMPLES = [
  'Café',
  'Zoë',
  'naïve',
  'São Paulo',
  'Straße',
  'Łódź',
  'Ørsted',
  'Crème brûlée',
  'Cafe\u0301',
];

/** What `unaccent` gives for each text, in order. */
type Unaccent = (texts: string[]) => Promise<string[]>;

/**
 * The in-memory store folds as the SQL stores do (RFC 0002, "Accent folding"): the test kit's
 * `foldAccents` against `unaccent` itself, character by character, on PGlite (PostgreSQL 18's rules)
 * and on the PostgreSQL server of the tests.
 */
function expectParity(unaccent: Unaccent) {
  return async () => {
    const characters = foldableCharacters();
    expect(characters.length).toBeGreaterThan(800);
    const folded = await unaccent(characters);
    const differing = characters.filter((char, index) => folded[index] !== foldAccents(char));
    expect(differing).toEqual([]);
    expect(await unaccent(SAMPLES)).toEqual(SAMPLES.map(foldAccents));
  };
}

describe('accent folding: the test kit folds exactly as unaccent', () => {
  it('on PGlite', async () => {
    const { pglite, release } = await openPGlite(undefined);
    try {
      await pglite.exec('CREATE EXTENSION unaccent');
      await expectParity(async (texts) => {
        const { rows } = await pglite.query<{ folded: string }>(
          'SELECT unaccent(t) AS folded FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n',
          [texts],
        );
        return rows.map((row) => row.folded);
      })();
    } finally {
      await pglite.close();
      release();
    }
  }, 60_000);

  it('on PostgreSQL', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.connectionString });
    try {
      await client.connect();
      await client.query('CREATE EXTENSION unaccent');
      await expectParity(async (texts) => {
        const { rows } = await client.query<{ folded: string }>(
          'SELECT unaccent(t) AS folded FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n',
          [texts],
        );
        return rows.map((row) => row.folded);
      })();
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
