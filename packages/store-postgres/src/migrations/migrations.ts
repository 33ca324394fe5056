import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';
import type { Database } from '../database.js';
import { backfillEntities } from '../entity-index.js';

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
 * Search at the database's floor (RFC 0002, "Storage for search"). Vectors move into the row: pgvector
 * stores `vector` out of line and uncompressed (storage EXTERNAL), so an exact scan read about 3.3
 * buffers and detoasted 4 KB per 1,024-dimension vector. They are now `sparsevec` with storage MAIN:
 * the same float4 values, only the non-zero ones, kept in the row (compressed if need be). The local
 * embedder's vectors hold a few dozen non-zero values, so a vector takes about 0.8 KB instead of 5.4 KB
 * and is scored in proportion to them. The table is rebuilt so existing vectors are converted too.
 * Per-scope search statistics describe the head revision and are kept in the write transaction: BM25's
 * document count and total length, and per embedding profile the active entries without a vector. A
 * read at another revision counts instead. The migration counts every scope's head once.
 */
const SEARCH_STORAGE_DDL = [
  `CREATE TABLE pc_embeddings_inline (
  entry_version_id uuid NOT NULL REFERENCES pc_entry_versions (entry_version_id),
  profile_id text NOT NULL REFERENCES pc_embedding_profiles (profile_id),
  scope_id text NOT NULL,
  embedding sparsevec NOT NULL
)`,
  `ALTER TABLE pc_embeddings_inline ALTER COLUMN embedding SET STORAGE MAIN`,
  `INSERT INTO pc_embeddings_inline (entry_version_id, profile_id, scope_id, embedding)
  SELECT entry_version_id, profile_id, scope_id, embedding::sparsevec FROM pc_embeddings
  ORDER BY scope_id, profile_id, entry_version_id`,
  `DROP TABLE pc_embeddings`,
  `ALTER TABLE pc_embeddings_inline RENAME TO pc_embeddings`,
  `ALTER TABLE pc_embeddings ADD CONSTRAINT pc_embeddings_pkey PRIMARY KEY (entry_version_id, profile_id)`,
  `CREATE INDEX pc_embeddings_scope_profile ON pc_embeddings (scope_id, profile_id)`,
  `CREATE INDEX pc_lexical_projections_version ON pc_lexical_projections (entry_version_id)`,
  `CREATE TABLE pc_scope_statistics (
  scope_id text PRIMARY KEY REFERENCES pc_memories (scope_id),
  revision integer NOT NULL,
  projections bigint NOT NULL,
  projection_length double precision NOT NULL,
  active_entries bigint NOT NULL
)`,
  `CREATE TABLE pc_scope_vector_statistics (
  scope_id text NOT NULL REFERENCES pc_memories (scope_id),
  profile_id text NOT NULL,
  revision integer NOT NULL,
  missing bigint NOT NULL,
  PRIMARY KEY (scope_id, profile_id)
)`,
  `INSERT INTO pc_scope_statistics (scope_id, revision, projections, projection_length, active_entries)
  SELECT m.scope_id, m.head_revision,
    (SELECT count(*) FROM pc_lexical_projections p WHERE p.scope_id = m.scope_id AND p.superseded_revision IS NULL),
    (SELECT coalesce(sum(p.lexical_length), 0) FROM pc_lexical_projections p
     WHERE p.scope_id = m.scope_id AND p.superseded_revision IS NULL),
    (SELECT count(*) FROM pc_entry_versions v
     WHERE v.scope_id = m.scope_id AND v.superseded_revision IS NULL AND v.state = 'active')
  FROM pc_memories m`,
  `INSERT INTO pc_scope_vector_statistics (scope_id, profile_id, revision, missing)
  SELECT m.scope_id, f.profile_id, m.head_revision,
    (SELECT count(*) FROM pc_entry_versions v
     WHERE v.scope_id = m.scope_id AND v.superseded_revision IS NULL AND v.state = 'active'
       AND NOT EXISTS (SELECT 1 FROM pc_embeddings e WHERE e.entry_version_id = v.entry_version_id AND e.profile_id = f.profile_id))
  FROM pc_memories m CROSS JOIN pc_embedding_profiles f`,
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
 * Idempotent writes (RFC 0005, "Idempotent writes"): one row per scope and key, written in the
 * transaction of the write it answers for, so it exists exactly when that write committed. `result`
 * is the write's answer as JSON text, kept verbatim (jsonb would reorder the keys of metadata). Rows
 * past `expires_at` are ignored by reads and pruned by later keyed writes, oldest first, through the
 * expiry index.
 */
const IDEMPOTENCY_DDL = [
  `CREATE TABLE pc_idempotency_keys (
  scope_id text NOT NULL,
  idempotency_key text NOT NULL,
  operation text NOT NULL,
  request_digest text NOT NULL,
  result text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope_id, idempotency_key)
)`,
  `CREATE INDEX pc_idempotency_keys_expiry ON pc_idempotency_keys (expires_at)`,
];

/**
 * Accent folding (migration 0008; issue 15, RFC 0002 "Full text"): the lexical analysis becomes
 * `to_tsvector(<config>, unaccent(text))` for entries and queries alike, so "cafe" finds "Café" and
 * "café" finds "cafe". The extension comes first; then every active version whose text the fold changes
 * is analysed again (`unaccent` maps non-ASCII characters only, so ASCII text is skipped unread), and
 * every projection that reads such a version, as its own words or as a neighbour's, live or superseded,
 * gets its postings and length rebuilt from the stored context, so searches at every revision see one
 * analysis. BM25's total length is recounted for the scopes touched. A database without accented text
 * changes nothing but the extension.
 */
const ACCENT_FOLDING_DDL = [
  `CREATE TEMPORARY TABLE pc_folded AS
  SELECT v.entry_version_id, v.scope_id, f.search_vector,
    (SELECT coalesce(sum(coalesce(array_length(t.positions, 1), 1)), 0) FROM unnest(f.search_vector) t)::integer AS lexical_length
  FROM pc_entry_versions v
  JOIN pc_settings s ON s.key = 'text_search_config'
  CROSS JOIN LATERAL (SELECT to_tsvector(s.value::regconfig, unaccent(v.text)) AS search_vector) f
  WHERE v.state = 'active' AND v.text ~ '[^\\x01-\\x7f]' AND f.search_vector <> v.search_vector`,
  `UPDATE pc_entry_versions v SET search_vector = f.search_vector, lexical_length = f.lexical_length
  FROM pc_folded f WHERE v.entry_version_id = f.entry_version_id`,
  `ANALYZE pc_folded`,
  `CREATE TEMPORARY TABLE pc_refolded_projections AS
  SELECT p.projection_id, p.scope_id, p.entry_version_id, p.context FROM pc_lexical_projections p
  WHERE p.projection_id IN (
    SELECT o.projection_id FROM pc_lexical_projections o JOIN pc_folded f ON f.entry_version_id = o.entry_version_id
    UNION
    SELECT n.projection_id FROM pc_lexical_projections n
    CROSS JOIN LATERAL jsonb_array_elements(n.context) c
    JOIN pc_folded f ON f.entry_version_id = (c->>'entryVersionId')::uuid
    WHERE n.scope_id IN (SELECT f.scope_id FROM pc_folded f))`,
  `ANALYZE pc_refolded_projections`,
  `CREATE TEMPORARY TABLE pc_refolded_parts AS
  SELECT r.projection_id, r.scope_id, r.entry_version_id AS source, 1::float8 AS weight FROM pc_refolded_projections r
  UNION ALL
  SELECT r.projection_id, r.scope_id, (c->>'entryVersionId')::uuid, (c->>'weight')::float8
  FROM pc_refolded_projections r CROSS JOIN LATERAL jsonb_array_elements(r.context) c`,
  `DELETE FROM pc_lexical_postings l USING pc_refolded_projections r
  WHERE l.scope_id = r.scope_id AND l.projection_id = r.projection_id`,
  `INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
  SELECT pt.scope_id, t.lexeme, pt.projection_id, sum(pt.weight * coalesce(array_length(t.positions, 1), 1))
  FROM pc_refolded_parts pt
  JOIN pc_entry_versions v ON v.entry_version_id = pt.source
  CROSS JOIN LATERAL unnest(v.search_vector) t
  GROUP BY pt.scope_id, pt.projection_id, t.lexeme`,
  `UPDATE pc_lexical_projections p SET lexical_length = z.len
  FROM (SELECT pt.projection_id, sum(pt.weight * v.lexical_length) AS len FROM pc_refolded_parts pt
        JOIN pc_entry_versions v ON v.entry_version_id = pt.source GROUP BY pt.projection_id) z
  WHERE p.projection_id = z.projection_id`,
  `UPDATE pc_scope_statistics s SET projection_length = c.len
  FROM (SELECT p.scope_id, coalesce(sum(p.lexical_length), 0) AS len FROM pc_lexical_projections p
        WHERE p.superseded_revision IS NULL AND p.scope_id IN (SELECT DISTINCT f.scope_id FROM pc_folded f)
        GROUP BY p.scope_id) c
  JOIN pc_memories m ON m.scope_id = c.scope_id
  WHERE s.scope_id = c.scope_id AND s.revision = m.head_revision`,
  `DROP TABLE pc_folded, pc_refolded_projections, pc_refolded_parts`,
];

/**
 * Purge (migration 0009; RFC 0002, "Purge"): what is left of an entry whose versions were erased. `pc_purged_entries`
 * holds the tombstone that ends the entry's version chain (its own version id and number, the purge's
 * revision, when and by whom); `pc_purged_versions` holds, for each erased version, only its ids, number,
 * operation, state and the revision range it was current in, so that reads at older revisions can say
 * that an entry was there and was purged. Neither holds text, kind, hash, sources, position or metadata.
 * Deleting a version checks the chain's foreign key (`previous_version_id`) by looking for versions
 * that name it: without an index that was a scan of the whole table per erased version (61 ms at
 * 100,000 rows). The index is partial, so a remember (whose versions have no predecessor) never
 * touches it; a revise, forget or reactivate adds one entry.
 */
const PURGE_DDL = [
  `CREATE INDEX pc_entry_versions_previous ON pc_entry_versions (previous_version_id)
  WHERE previous_version_id IS NOT NULL`,
  `CREATE TABLE pc_purged_entries (
  scope_id text NOT NULL REFERENCES pc_memories (scope_id),
  entry_id uuid NOT NULL,
  entry_version_id uuid NOT NULL UNIQUE,
  version integer NOT NULL CHECK (version >= 2),
  previous_version_id uuid NOT NULL,
  revision integer NOT NULL,
  purged_at timestamptz NOT NULL DEFAULT now(),
  purged_by text,
  PRIMARY KEY (scope_id, entry_id)
)`,
  `CREATE INDEX pc_purged_entries_scope_revision ON pc_purged_entries (scope_id, revision, entry_version_id)`,
  `CREATE TABLE pc_purged_versions (
  entry_version_id uuid PRIMARY KEY,
  scope_id text NOT NULL,
  entry_id uuid NOT NULL,
  version integer NOT NULL,
  revision integer NOT NULL,
  superseded_revision integer NOT NULL,
  operation text NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'inactive')),
  FOREIGN KEY (scope_id, entry_id) REFERENCES pc_purged_entries (scope_id, entry_id)
)`,
  `CREATE INDEX pc_purged_versions_scope_revision ON pc_purged_versions (scope_id, revision, entry_version_id)`,
  `CREATE INDEX pc_purged_versions_scope_entry ON pc_purged_versions (scope_id, entry_id, version)`,
];

/**
 * Per-key rate limits kept in the database (migration 0010; issue 16, RFC 0005 "More than one
 * server"): one token bucket per API key, shared by every server process, updated in one statement.
 */
const RATE_LIMITS_DDL = [
  `CREATE TABLE pc_rate_limits (
  key_id text PRIMARY KEY,
  tokens double precision NOT NULL,
  allowed boolean NOT NULL,
  updated_at timestamptz NOT NULL
)`,
];

/**
 * The entity index of the entity and graph channels (migration 0011, RFC 0013): the entities of each
 * active version's text, looked up by (scope, entity) and deleted by version. Versions written before
 * it get theirs from the migration's backfill.
 */
const ENTITIES_DDL = [
  `CREATE TABLE pc_entities (
  scope_id text NOT NULL,
  entity text NOT NULL,
  entry_version_id uuid NOT NULL REFERENCES pc_entry_versions (entry_version_id),
  PRIMARY KEY (scope_id, entity, entry_version_id)
)`,
  `CREATE INDEX pc_entities_version ON pc_entities (entry_version_id)`,
];

/**
 * What an entry can say about itself (migration 0012, RFC 0014 "Entry fields"): tags (lower case),
 * pinned and the time the entry is about; existing versions get no tags, not pinned, no time. A
 * version's write time is kept to the millisecond, as the API shows it and as filters compare it.
 * The filters' b-trees lead with the scope, like every read of a channel.
 */
const ENTRY_FIELDS_DDL = [
  `ALTER TABLE pc_entry_versions
  ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
  ADD COLUMN pinned boolean NOT NULL DEFAULT false,
  ADD COLUMN occurred_at timestamptz`,
  `ALTER TABLE pc_entry_versions ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now())`,
  `CREATE INDEX pc_entry_versions_scope_kind ON pc_entry_versions (scope_id, kind, revision)`,
  `CREATE INDEX pc_entry_versions_scope_occurred ON pc_entry_versions (scope_id, occurred_at)
  WHERE occurred_at IS NOT NULL`,
  `CREATE INDEX pc_entry_versions_scope_written ON pc_entry_versions (scope_id, created_at)`,
  `CREATE INDEX pc_entry_versions_scope_pinned ON pc_entry_versions (scope_id, revision) WHERE pinned`,
];

/**
 * Deleted scopes (migration 0013; RFC 0015, "Delete a scope"): what a deletion leaves of a scope, one row
 * per scope: its memory's artifact id, the head revision and the entries current then, when and by whom.
 * Every other row of the scope is deleted. A scope named here answers `scope_purged`.
 */
const DELETED_SCOPES_DDL = [
  `CREATE TABLE pc_deleted_scopes (
  scope_id text PRIMARY KEY,
  artifact_id uuid NOT NULL,
  revision integer NOT NULL,
  entries bigint NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  deleted_by text
)`,
];

/**
 * The HNSW index of the vector channel becomes one per (profile, scope) that outgrew the exact scan
 * (migration 0014, issue 28, RFC 0002 "The HNSW index of a large scope"): the per-profile indexes,
 * which every scope's writes went through, are dropped here; the store builds each large scope's own
 * when it prepares the profile (the exact-scan limit is the store's setting, not the schema's).
 */
async function dropProfileHnswIndexes(db: Kysely<unknown>) {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = 'pc_embeddings'::regclass AND c.relname LIKE 'pc\_embeddings\_hnsw\_%'`.execute(db);
  for (const { name } of rows) await sql`DROP INDEX ${sql.id(name)}`.execute(db);
}

/**
 * Every key of a scope's rows leads with its scope (migration 0015; issue 32, RFC 0011 "Sharding with
 * Citus"): a table distributed by `scope_id` can only hold unique constraints and foreign keys that
 * include it, and every statement of a scope can then name the one shard that holds it. `pc_revisions`
 * gets its scope (carried over from its memory). The keys that named a version, a projection or an
 * artifact alone now name (scope, it); the indexes that found rows by a version alone lead with the
 * scope; the idempotency expiry is found per scope (the prune prunes the writing scope). What a key
 * identifies does not change: ids are UUIDs, or an identity, unique across scopes anyway.
 *
 * The foreign keys from a projection, a vector and an entity to their version are dropped, not made
 * (scope, version) pairs: PGlite's cached plan for the (scope, version) check of each inserted row,
 * made while the tables were small, walked the scope as it grew (an import of 4,000 entries into a new
 * scope took 3.8 s instead of 1.1 s beside 150 small scopes). The write transaction inserts the version
 * before them and a purge deletes them before it, as before.
 */
const SCOPE_KEYS_DDL = [
  `ALTER TABLE pc_revisions ADD COLUMN scope_id text`,
  `UPDATE pc_revisions r SET scope_id = m.scope_id FROM pc_memories m WHERE m.artifact_id = r.artifact_id`,
  `ALTER TABLE pc_revisions ALTER COLUMN scope_id SET NOT NULL`,
  `ALTER TABLE pc_revisions DROP CONSTRAINT pc_revisions_pkey, ADD PRIMARY KEY (scope_id, revision)`,
  `ALTER TABLE pc_memories DROP CONSTRAINT pc_memories_artifact_id_key,
  ADD CONSTRAINT pc_memories_scope_artifact UNIQUE (scope_id, artifact_id)`,
  `ALTER TABLE pc_entry_versions DROP CONSTRAINT pc_entry_versions_pkey,
  ADD PRIMARY KEY (scope_id, entry_version_id)`,
  `ALTER TABLE pc_entry_versions DROP CONSTRAINT pc_entry_versions_entry_id_version_key,
  ADD CONSTRAINT pc_entry_versions_scope_entry_version UNIQUE (scope_id, entry_id, version)`,
  `ALTER TABLE pc_lexical_projections DROP CONSTRAINT pc_lexical_projections_pkey,
  ADD PRIMARY KEY (scope_id, projection_id)`,
  `ALTER TABLE pc_embeddings DROP CONSTRAINT pc_embeddings_pkey,
  ADD PRIMARY KEY (scope_id, entry_version_id, profile_id)`,
  `ALTER TABLE pc_purged_entries DROP CONSTRAINT pc_purged_entries_entry_version_id_key,
  ADD CONSTRAINT pc_purged_entries_scope_version UNIQUE (scope_id, entry_version_id)`,
  `ALTER TABLE pc_purged_versions DROP CONSTRAINT pc_purged_versions_pkey,
  ADD PRIMARY KEY (scope_id, entry_version_id)`,
  `DROP INDEX pc_entities_version`,
  `CREATE INDEX pc_entities_version ON pc_entities (scope_id, entry_version_id)`,
  `DROP INDEX pc_entry_versions_previous`,
  `CREATE INDEX pc_entry_versions_previous ON pc_entry_versions (scope_id, previous_version_id)
  WHERE previous_version_id IS NOT NULL`,
  `DROP INDEX pc_lexical_projections_version`,
  `CREATE INDEX pc_lexical_projections_version ON pc_lexical_projections (scope_id, entry_version_id)`,
  `DROP INDEX pc_lexical_projections_current`,
  `CREATE UNIQUE INDEX pc_lexical_projections_current ON pc_lexical_projections (scope_id, entry_version_id)
  WHERE superseded_revision IS NULL`,
  `DROP INDEX pc_idempotency_keys_expiry`,
  `CREATE INDEX pc_idempotency_keys_expiry ON pc_idempotency_keys (scope_id, expires_at)`,
  `ALTER TABLE pc_revisions ADD CONSTRAINT pc_revisions_memory
  FOREIGN KEY (scope_id, artifact_id) REFERENCES pc_memories (scope_id, artifact_id)`,
  `ALTER TABLE pc_entry_versions ADD CONSTRAINT pc_entry_versions_previous_version
  FOREIGN KEY (scope_id, previous_version_id) REFERENCES pc_entry_versions (scope_id, entry_version_id)`,
];

/**
 * The foreign keys of migration 0015's tables that name a version or an artifact without its scope:
 * dropped before the keys they reference change (migration 0015 adds each back with the scope). Found
 * by what they reference, not by name: one of them was named by a table that was renamed since.
 */
async function dropUnscopedForeignKeys(db: Kysely<unknown>) {
  const { rows } = await sql<{ table: string; name: string }>`
    SELECT c.conrelid::regclass::text AS table, c.conname AS name FROM pg_constraint c
    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      AND c.confrelid IN ('pc_entry_versions'::regclass, 'pc_memories'::regclass)
      AND NOT EXISTS (
        SELECT 1 FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k
        WHERE a.attname = 'scope_id'
      )`.execute(db);
  for (const { table, name } of rows)
    await sql`ALTER TABLE ${sql.id(table)} DROP CONSTRAINT ${sql.id(name)}`.execute(db);
}

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
  '0004_search_storage': {
    async up(db: Kysely<unknown>) {
      for (const statement of SEARCH_STORAGE_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0006_ingest_write_path': {
    async up(db: Kysely<unknown>) {
      for (const statement of INGEST_WRITE_PATH_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0007_idempotency_keys': {
    async up(db: Kysely<unknown>) {
      for (const statement of IDEMPOTENCY_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0008_accent_folding': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE EXTENSION IF NOT EXISTS unaccent`.execute(db);
      for (const statement of ACCENT_FOLDING_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0009_purge': {
    async up(db: Kysely<unknown>) {
      for (const statement of PURGE_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0010_rate_limits': {
    async up(db: Kysely<unknown>) {
      for (const statement of RATE_LIMITS_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0011_entities': {
    async up(db: Kysely<unknown>) {
      for (const statement of ENTITIES_DDL) await sql.raw(statement).execute(db);
      await backfillEntities(db as Kysely<Database>);
    },
  },
  '0012_entry_fields': {
    async up(db: Kysely<unknown>) {
      for (const statement of ENTRY_FIELDS_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0013_deleted_scopes': {
    async up(db: Kysely<unknown>) {
      for (const statement of DELETED_SCOPES_DDL) await sql.raw(statement).execute(db);
    },
  },
  '0014_scope_hnsw_indexes': {
    up: dropProfileHnswIndexes,
  },
  '0015_scope_keys': {
    async up(db: Kysely<unknown>) {
      await dropUnscopedForeignKeys(db);
      for (const statement of SCOPE_KEYS_DDL) await sql.raw(statement).execute(db);
    },
  },
};

export const memoryMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};

/**
 * This module's own file: its text names the schema, so a cached copy of a migrated cluster is keyed by
 * it. In the published bundle (scripts/bundle-packages.mjs) that file is the store's chunk holding this
 * module, so a change anywhere in it also makes a new copy: never a stale one (the older copies are
 * pruned: private-templates.ts, pruneTemplates).
 */
export const MIGRATIONS_MODULE_URL = import.meta.url;
