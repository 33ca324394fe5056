import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';

const MEMORY_MODEL_DDL = [
  `CREATE TABLE pc_settings (key text PRIMARY KEY, value text NOT NULL)`,
  `CREATE TABLE pc_memories (
  scope_id text PRIMARY KEY,
  artifact_id uuid NOT NULL UNIQUE,
  head_revision integer NOT NULL CHECK (head_revision >= 1),
  created_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE TABLE pc_revisions (
  artifact_id uuid NOT NULL REFERENCES pc_memories (artifact_id),
  revision integer NOT NULL,
  operation text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (artifact_id, revision)
)`,
  `CREATE TABLE pc_entry_versions (
  entry_version_id uuid PRIMARY KEY,
  scope_id text NOT NULL REFERENCES pc_memories (scope_id),
  entry_id uuid NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  previous_version_id uuid REFERENCES pc_entry_versions (entry_version_id),
  kind text NOT NULL,
  text text NOT NULL,
  content_hash text NOT NULL,
  revision integer NOT NULL,
  superseded_revision integer,
  operation text NOT NULL,
  sources jsonb NOT NULL,
  metadata jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'inactive')),
  search_vector tsvector NOT NULL,
  lexical_length integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (entry_id, version)
)`,
  `CREATE INDEX pc_entry_versions_scope_entry ON pc_entry_versions (scope_id, entry_id, revision)`,
  `CREATE INDEX pc_entry_versions_scope_revision ON pc_entry_versions (scope_id, revision, entry_version_id)`,
  `CREATE INDEX pc_entry_versions_current_hash ON pc_entry_versions (scope_id, content_hash)
  WHERE superseded_revision IS NULL AND state = 'active'`,
  `CREATE INDEX pc_entry_versions_search ON pc_entry_versions USING gin (search_vector)`,
  `CREATE TABLE pc_postings (
  scope_id text NOT NULL,
  lexeme text NOT NULL,
  entry_version_id uuid NOT NULL REFERENCES pc_entry_versions (entry_version_id),
  tf integer NOT NULL,
  PRIMARY KEY (scope_id, lexeme, entry_version_id)
)`,
  `CREATE TABLE pc_embedding_profiles (
  profile_id text PRIMARY KEY,
  dimension integer NOT NULL CHECK (dimension > 0),
  normalization text NOT NULL,
  min_cosine double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE TABLE pc_embeddings (
  entry_version_id uuid NOT NULL REFERENCES pc_entry_versions (entry_version_id),
  profile_id text NOT NULL REFERENCES pc_embedding_profiles (profile_id),
  scope_id text NOT NULL,
  embedding vector NOT NULL,
  PRIMARY KEY (entry_version_id, profile_id)
)`,
  `CREATE INDEX pc_embeddings_scope_profile ON pc_embeddings (scope_id, profile_id)`,
];

/**
 * Contextual lexical index (RFC 0007): entries get an optional position in an ordered source, and the
 * lexical index moves from one postings set per entry version to versioned projections. A projection
 * holds an entry's words plus its neighbours' (weighted), is valid for a revision range like an entry
 * version, and names the policy that built it. Existing versions keep their own words only, under
 * the plain policy, until a rebuild.
 */
const CONTEXTUAL_INDEX_DDL = [
  `ALTER TABLE pc_entry_versions ADD COLUMN position_source text, ADD COLUMN position_order float8[]`,
  `CREATE INDEX pc_entry_versions_position ON pc_entry_versions (scope_id, position_source)
  WHERE position_source IS NOT NULL AND superseded_revision IS NULL`,
  `CREATE TABLE pc_lexical_projections (
  projection_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope_id text NOT NULL,
  entry_version_id uuid NOT NULL REFERENCES pc_entry_versions (entry_version_id),
  revision integer NOT NULL,
  superseded_revision integer,
  policy_id text NOT NULL,
  context jsonb NOT NULL,
  lexical_length double precision NOT NULL
)`,
  `CREATE UNIQUE INDEX pc_lexical_projections_current ON pc_lexical_projections (entry_version_id)
  WHERE superseded_revision IS NULL`,
  `CREATE INDEX pc_lexical_projections_scope_revision ON pc_lexical_projections (scope_id, revision)`,
  `CREATE TABLE pc_lexical_postings (
  scope_id text NOT NULL,
  lexeme text NOT NULL,
  projection_id bigint NOT NULL REFERENCES pc_lexical_projections (projection_id) ON DELETE CASCADE,
  tf double precision NOT NULL,
  PRIMARY KEY (scope_id, lexeme, projection_id)
)`,
  `CREATE INDEX pc_lexical_postings_projection ON pc_lexical_postings (projection_id)`,
  `INSERT INTO pc_lexical_projections (scope_id, entry_version_id, revision, superseded_revision, policy_id, context, lexical_length)
  SELECT scope_id, entry_version_id, revision, superseded_revision, 'powercontext.lexical.neighbours.v1()', '[]'::jsonb, lexical_length
  FROM pc_entry_versions WHERE state = 'active'`,
  `INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
  SELECT o.scope_id, o.lexeme, p.projection_id, o.tf FROM pc_postings o
  JOIN pc_lexical_projections p ON p.entry_version_id = o.entry_version_id`,
  `DROP TABLE pc_postings`,
];

/**
 * The write path's share of issue 13 (RFC 0006, "Ingest"): what every write paid for and no read
 * uses. The GIN index over `search_vector` served no statement (the lexical channel reads the
 * postings); the postings' foreign key to their projection cost one trigger call per postings row
 * (about 50 per entry) although the store writes a projection and its postings in one statement and
 * removes them together (rebuild deletes the postings explicitly); the index of postings by projection
 * served only that key and the rebuild, which now finds a scope's postings through the primary key's
 * scope prefix. Each postings row now updates one index instead of two.
 */
const INGEST_WRITE_PATH_DDL = [
  `DROP INDEX IF EXISTS pc_entry_versions_search`,
  `ALTER TABLE pc_lexical_postings DROP CONSTRAINT IF EXISTS pc_lexical_postings_projection_id_fkey`,
  `DROP INDEX IF EXISTS pc_lexical_postings_projection`,
];

/**
 * Versioned schema migrations, applied in name order by kysely's Migrator. Never edit a released
 * migration: add a new one.
 */
const migrations: Record<string, Migration> = {
  '0001_memory_model': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE EXTENSION IF NOT EXISTS vector`.execute(db);
      for (const statement of MEMORY_MODEL_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0002_contextual_lexical_index': {
    async up(db: Kysely<unknown>) {
      for (const statement of CONTEXTUAL_INDEX_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0006_ingest_write_path': {
    async up(db: Kysely<unknown>) {
      for (const statement of INGEST_WRITE_PATH_DDL) await sql.raw(statement).execute(db);
    },
  },
};

export const memoryMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};
