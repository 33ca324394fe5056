import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
const PROFILE = 'test.profile.v1';
const version = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;

/**
 * A scope as the 6a3d005 release stored it (schema 0002): vectors as out-of-line `vector` values, no
 * search statistics. Revision 2 forgot entry 2 (a new inactive version, no vector, no projection).
 */
async function writeReleaseFormat(dataDir: string) {
  const { pglite, release } = await openPGlite(dataDir);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  try {
    const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo(
      '0002_contextual_lexical_index',
    );
    expect(migrated.error).toBeUndefined();
    await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
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
      [4, 'the ferry is blue', 'active', 1, null],
    ];
    for (const [n, text, state, revision, superseded] of rows) {
      await sql`
        INSERT INTO pc_entry_versions (entry_version_id, scope_id, entry_id, version, previous_version_id, kind, text,
          content_hash, revision, superseded_revision, operation, sources, metadata, state, search_vector, lexical_length)
        VALUES (${version(n)}, 'old', ${n === 3 ? version(2) : version(n)}, ${n === 3 ? 2 : 1}, ${n === 3 ? version(2) : null},
          'note', ${text}, ${`hash-${n}`}, ${revision}, ${superseded}, ${n === 3 ? 'forget' : 'remember'}, '[]', '{}', ${state},
          CASE WHEN ${state} = 'active' THEN to_tsvector('english', ${text}) ELSE ''::tsvector END,
          CASE WHEN ${state} = 'active' THEN length(to_tsvector('english', ${text})) ELSE 0 END)`.execute(db);
    }
    await sql`
      INSERT INTO pc_lexical_projections (scope_id, entry_version_id, revision, superseded_revision, policy_id, context, lexical_length)
      SELECT scope_id, entry_version_id, revision, superseded_revision, 'powercontext.lexical.neighbours.v1()', '[]', lexical_length
      FROM pc_entry_versions WHERE state = 'active'`.execute(db);
    await sql`
      INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
      SELECT p.scope_id, t.lexeme, p.projection_id, coalesce(array_length(t.positions, 1), 1)
      FROM pc_lexical_projections p JOIN pc_entry_versions v USING (entry_version_id) CROSS JOIN LATERAL unnest(v.search_vector) t`.execute(
      db,
    );
    await sql`INSERT INTO pc_embedding_profiles (profile_id, dimension, normalization, min_cosine) VALUES (${PROFILE}, 3, 'l2', 0)`.execute(
      db,
    );
    await sql`
      INSERT INTO pc_embeddings (entry_version_id, profile_id, scope_id, embedding) VALUES
        (${version(1)}, ${PROFILE}, 'old', '[1,0,0]'), (${version(2)}, ${PROFILE}, 'old', '[0.6,0.8,0]'),
        (${version(4)}, ${PROFILE}, 'old', '[0,0.6,0.8]')`.execute(db);
  } finally {
    await db.destroy();
    release();
  }
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0004 (search storage) on data written by the 6a3d005 release', {
  timeout: 120_000,
}, () => {
  it('converts every vector into the row, counts the statistics of the head, and searches as before', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-migration-'));
    dirs.push(dataDir);
    await writeReleaseFormat(dataDir);

    const store = await createPGliteMemoryStore({ dataDir });
    try {
      const vector = async (revision: number) => {
        const candidates = await store.vectorSearch({
          scopeId: 'old',
          revision,
          profileId: PROFILE,
          vector: [1, 0, 0],
          limit: 10,
        });
        const texts = await candidateTexts(store, 'old', candidates);
        return candidates.map((c, i) => [texts[i], Number(c.score.toFixed(6))]);
      };
      // The forgotten entry's vector is found at revision 1 only; scores are the stored values.
      expect(await vector(1)).toEqual([
        ['the ferry leaves at noon', 1],
        ['bring the blue umbrella', 0.6],
        ['the ferry is blue', 0],
      ]);
      expect(await vector(2)).toEqual([
        ['the ferry leaves at noon', 1],
        ['the ferry is blue', 0],
      ]);
      expect(await store.vectorIndexState('old', 2, PROFILE)).toEqual({
        profileId: PROFILE,
        missing: 0,
        complete: true,
      });
      expect(await store.searchHead('old', PROFILE)).toEqual({
        memory: { artifactId: ARTIFACT, scopeId: 'old', revision: 2 },
        vectorIndex: { profileId: PROFILE, missing: 0, complete: true },
      });
      const lexical = async (revision: number) =>
        candidateTexts(
          store,
          'old',
          (
            await store.lexicalSearch({
              scopeId: 'old',
              revision,
              query: 'blue ferry',
              limit: 10,
              bm25: { k1: 1.2, b: 0.75, delta: 0 },
            })
          ).candidates,
        );
      // At revision 1 the two one-term matches tie (same idf, same length): entry id decides.
      expect(await lexical(1)).toEqual([
        'the ferry is blue',
        'the ferry leaves at noon',
        'bring the blue umbrella',
      ]);
      expect(await lexical(2)).toEqual(['the ferry is blue', 'the ferry leaves at noon']);
      // A later write moves on from the statistics the migration counted.
      const head = await store.searchHead('old', 'another.profile');
      expect(head?.vectorIndex).toEqual({ profileId: 'another.profile', missing: 2, complete: false });
    } finally {
      await store.close();
    }

    // The layout on disk: sparsevec, kept in the row; one statistics row per scope, at the head.
    const { pglite, release } = await openPGlite(dataDir);
    try {
      const column = await pglite.query<{ type: string; storage: string }>(
        `SELECT format_type(a.atttypid, a.atttypmod) AS type, a.attstorage AS storage FROM pg_attribute a
         WHERE a.attrelid = 'pc_embeddings'::regclass AND a.attname = 'embedding'`,
      );
      expect(column.rows).toEqual([{ type: 'sparsevec', storage: 'm' }]);
      const statistics = await pglite.query<{
        revision: number;
        projections: number;
        active_entries: number;
      }>(
        `SELECT revision, projections::int AS projections, active_entries::int AS active_entries FROM pc_scope_statistics`,
      );
      expect(statistics.rows).toEqual([{ revision: 2, projections: 2, active_entries: 2 }]);
    } finally {
      await pglite.close();
      release();
    }
    // Three opens of an on-disk PGlite: slow on a busy machine, so a generous timeout.
  }, 300_000);
});
