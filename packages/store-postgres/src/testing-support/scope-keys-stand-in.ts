import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';

/**
 * Today's write path names each revision's scope and finds a vector by (scope, version, profile), which
 * migration 0015 brings: tests that write at a schema before it add this stand-in first (the column,
 * and a unique index for the vectors' ON CONFLICT) and drop it before migrating forward, so that 0015
 * then carries the scope over itself.
 */
export async function addScopeKeysStandIn(db: Kysely<Database>): Promise<void> {
  await sql`ALTER TABLE pc_revisions ADD COLUMN scope_id text`.execute(db);
  await sql`CREATE UNIQUE INDEX pc_embeddings_scope_key_stand_in ON pc_embeddings (scope_id, entry_version_id, profile_id)`.execute(
    db,
  );
}

export async function dropScopeKeysStandIn(db: Kysely<Database>): Promise<void> {
  await sql`DROP INDEX pc_embeddings_scope_key_stand_in`.execute(db);
  await sql`ALTER TABLE pc_revisions DROP COLUMN scope_id`.execute(db);
}

/**
 * Takes a database at the latest schema back to 0014: the keys, indexes and foreign keys as they were
 * before migration 0015 (names included), `pc_revisions` without its scope, and the record gone.
 */
export async function undoScopeKeys(db: Kysely<Database>): Promise<void> {
  const statements = [
    `ALTER TABLE pc_revisions DROP CONSTRAINT pc_revisions_memory`,
    `ALTER TABLE pc_entry_versions DROP CONSTRAINT pc_entry_versions_previous_version`,
    `ALTER TABLE pc_revisions DROP CONSTRAINT pc_revisions_pkey, DROP COLUMN scope_id,
      ADD PRIMARY KEY (artifact_id, revision)`,
    `ALTER TABLE pc_memories DROP CONSTRAINT pc_memories_scope_artifact,
      ADD CONSTRAINT pc_memories_artifact_id_key UNIQUE (artifact_id)`,
    `ALTER TABLE pc_entry_versions DROP CONSTRAINT pc_entry_versions_pkey, ADD PRIMARY KEY (entry_version_id)`,
    `ALTER TABLE pc_entry_versions DROP CONSTRAINT pc_entry_versions_scope_entry_version,
      ADD CONSTRAINT pc_entry_versions_entry_id_version_key UNIQUE (entry_id, version)`,
    `ALTER TABLE pc_lexical_projections DROP CONSTRAINT pc_lexical_projections_pkey, ADD PRIMARY KEY (projection_id)`,
    `ALTER TABLE pc_embeddings DROP CONSTRAINT pc_embeddings_pkey, ADD PRIMARY KEY (entry_version_id, profile_id)`,
    `ALTER TABLE pc_purged_entries DROP CONSTRAINT pc_purged_entries_scope_version,
      ADD CONSTRAINT pc_purged_entries_entry_version_id_key UNIQUE (entry_version_id)`,
    `ALTER TABLE pc_purged_versions DROP CONSTRAINT pc_purged_versions_pkey, ADD PRIMARY KEY (entry_version_id)`,
    `DROP INDEX pc_entities_version`,
    `CREATE INDEX pc_entities_version ON pc_entities (entry_version_id)`,
    `DROP INDEX pc_entry_versions_previous`,
    `CREATE INDEX pc_entry_versions_previous ON pc_entry_versions (previous_version_id) WHERE previous_version_id IS NOT NULL`,
    `DROP INDEX pc_lexical_projections_version`,
    `CREATE INDEX pc_lexical_projections_version ON pc_lexical_projections (entry_version_id)`,
    `DROP INDEX pc_lexical_projections_current`,
    `CREATE UNIQUE INDEX pc_lexical_projections_current ON pc_lexical_projections (entry_version_id)
      WHERE superseded_revision IS NULL`,
    `DROP INDEX pc_idempotency_keys_expiry`,
    `CREATE INDEX pc_idempotency_keys_expiry ON pc_idempotency_keys (expires_at)`,
    `ALTER TABLE pc_revisions ADD CONSTRAINT pc_revisions_artifact_id_fkey
      FOREIGN KEY (artifact_id) REFERENCES pc_memories (artifact_id)`,
    `ALTER TABLE pc_entry_versions ADD CONSTRAINT pc_entry_versions_previous_version_id_fkey
      FOREIGN KEY (previous_version_id) REFERENCES pc_entry_versions (entry_version_id)`,
    `ALTER TABLE pc_lexical_projections ADD CONSTRAINT pc_lexical_projections_entry_version_id_fkey
      FOREIGN KEY (entry_version_id) REFERENCES pc_entry_versions (entry_version_id)`,
    `ALTER TABLE pc_embeddings ADD CONSTRAINT pc_embeddings_inline_entry_version_id_fkey
      FOREIGN KEY (entry_version_id) REFERENCES pc_entry_versions (entry_version_id)`,
    `ALTER TABLE pc_entities ADD CONSTRAINT pc_entities_entry_version_id_fkey
      FOREIGN KEY (entry_version_id) REFERENCES pc_entry_versions (entry_version_id)`,
    `DELETE FROM kysely_migration WHERE name = '0015_scope_keys'`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
