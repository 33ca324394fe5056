import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PLAIN_LEXICAL_PROJECTION } from '@powercontext/memory-core';
import { Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { candidateTexts } from './testing-support/candidate-texts.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const ARTIFACT = '00000000-0000-4000-8000-000000000001';
const version = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;

/** Writes a scope the way migration 0001 stored it: one postings set per entry version. */
async function writeOldFormat(dataDir: string) {
  const { pglite, release } = await openPGlite(dataDir);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  try {
    const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo('0001_memory_model');
    expect(migrated.error).toBeUndefined();
    await sql`INSERT INTO pc_memories (scope_id, artifact_id, head_revision) VALUES ('old', ${ARTIFACT}, 2)`.execute(
      db,
    );
    await sql`INSERT INTO pc_revisions (artifact_id, revision, operation) VALUES (${ARTIFACT}, 1, 'remember'), (${ARTIFACT}, 2, 'forget')`.execute(
      db,
    );
    const rows: [number, string, string, number, number | null][] = [
      [1, 'the ferry leaves at noon', 'active', 1, null],
      [2, 'bring the blue umbrella', 'active', 1, 2],
      [3, 'bring the blue umbrella', 'inactive', 2, null],
    ];
    for (const [n, text, state, revision, superseded] of rows) {
      await sql`
        INSERT INTO pc_entry_versions (entry_version_id, scope_id, entry_id, version, previous_version_id, kind, text,
          content_hash, revision, superseded_revision, operation, sources, metadata, state, search_vector, lexical_length)
        VALUES (${version(n)}, 'old', ${n === 3 ? version(2) : version(n)}, ${n === 3 ? 2 : 1}, ${n === 3 ? version(2) : null},
          'note', ${text}, ${`hash-${n}`}, ${revision}, ${superseded}, ${n === 3 ? 'forget' : 'remember'}, '[]', '{}', ${state},
          CASE WHEN ${state} = 'active' THEN to_tsvector('english', ${text}) ELSE ''::tsvector END, 4)`.execute(
        db,
      );
    }
    await sql`
      INSERT INTO pc_postings (scope_id, lexeme, entry_version_id, tf)
      SELECT v.scope_id, t.lexeme, v.entry_version_id, 1 FROM pc_entry_versions v CROSS JOIN LATERAL unnest(v.search_vector) t`.execute(
      db,
    );
    await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
  } finally {
    await db.destroy();
    release();
  }
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0002 (contextual lexical index) on data written by 0001', { timeout: 120_000 }, () => {
  it('moves every entry version’s postings to a plain projection with the same revision range', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-migration-'));
    dirs.push(dataDir);
    await writeOldFormat(dataDir);

    const store = await createPGliteMemoryStore({ dataDir });
    try {
      const search = async (query: string, revision: number) =>
        candidateTexts(
          store,
          'old',
          (
            await store.lexicalSearch({
              scopeId: 'old',
              revision,
              query,
              limit: 10,
              bm25: { k1: 1.2, b: 0, delta: 0 },
            })
          ).candidates,
        );
      expect(await search('ferry', 2)).toEqual(['the ferry leaves at noon']);
      // The forgotten entry is found at the revision where it was active, and not after.
      expect(await search('umbrella', 1)).toEqual(['bring the blue umbrella']);
      expect(await search('umbrella', 2)).toEqual([]);
      expect(await store.lexicalProjectionState('old', 2, PLAIN_LEXICAL_PROJECTION.id)).toEqual({
        policyId: PLAIN_LEXICAL_PROJECTION.id,
        stale: 0,
        complete: true,
      });
    } finally {
      await store.close();
    }
  });
});
