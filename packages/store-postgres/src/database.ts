import type { ColumnType, Generated } from 'kysely';

/** Table shapes as kysely sees them. Every table is prefixed `pc_` to share a database politely. */
export interface Database {
  pc_settings: { key: string; value: string };
  pc_memories: { scope_id: string; artifact_id: string; head_revision: number; created_at: Generated<Date> };
  pc_revisions: {
    scope_id: string;
    artifact_id: string;
    revision: number;
    operation: string;
    created_at: Generated<Date>;
  };
  pc_entry_versions: {
    entry_version_id: string;
    scope_id: string;
    entry_id: string;
    version: number;
    previous_version_id: string | null;
    kind: string;
    text: string;
    content_hash: string;
    revision: number;
    superseded_revision: number | null;
    operation: string;
    sources: ColumnType<unknown, string, string>;
    metadata: ColumnType<unknown, string, string>;
    state: 'active' | 'inactive';
    lexical_length: number;
    position_source: string | null;
    position_order: number[] | null;
    tags: Generated<string[]>;
    pinned: Generated<boolean>;
    occurred_at: Date | string | null;
    created_at: Generated<Date>;
  };
  pc_lexical_projections: {
    projection_id: Generated<string>;
    scope_id: string;
    entry_version_id: string;
    revision: number;
    superseded_revision: number | null;
    policy_id: string;
    context: ColumnType<unknown, string, string>;
    lexical_length: number;
  };
  pc_lexical_postings: { scope_id: string; lexeme: string; projection_id: string; tf: number };
  pc_embedding_profiles: {
    profile_id: string;
    dimension: number;
    normalization: string;
    min_cosine: number;
    created_at: Generated<Date>;
  };
  pc_embeddings: { entry_version_id: string; profile_id: string; scope_id: string; embedding: string };
  /** Search statistics of a scope at `revision` (its head when they were written); migration 0004. */
  pc_scope_statistics: {
    scope_id: string;
    revision: number;
    projections: string | number;
    projection_length: number;
    active_entries: string | number;
  };
  /** Idempotency records of keyed writes, per scope and key; migration 0007. */
  pc_idempotency_keys: {
    scope_id: string;
    idempotency_key: string;
    operation: string;
    request_digest: string;
    result: string;
    created_at: Date;
    expires_at: Date;
  };
  /** The tombstone of a purged entry (RFC 0002, "Purge"); migration 0009. */
  pc_purged_entries: {
    scope_id: string;
    entry_id: string;
    entry_version_id: string;
    version: number;
    previous_version_id: string;
    revision: number;
    purged_at: Generated<Date>;
    purged_by: string | null;
  };
  /** An erased version: ids, number, operation, state and the revisions it was current in; migration 0009. */
  pc_purged_versions: {
    entry_version_id: string;
    scope_id: string;
    entry_id: string;
    version: number;
    revision: number;
    superseded_revision: number;
    operation: string;
    state: 'active' | 'inactive';
  };
  /** The tombstone of a deleted scope (RFC 0015); migration 0013. */
  pc_deleted_scopes: {
    scope_id: string;
    artifact_id: string;
    revision: number;
    entries: string | number;
    deleted_at: Generated<Date>;
    deleted_by: string | null;
  };
  /** The entities of each active version's text (RFC 0013); migration 0011. */
  pc_entities: { scope_id: string; entity: string; entry_version_id: string };
  /** Per-key token buckets shared by server processes; migration 0010. */
  pc_rate_limits: { key_id: string; tokens: number; allowed: boolean; updated_at: Date };
  /** Active entries at `revision` without a vector of the profile; migration 0004. */
  pc_scope_vector_statistics: {
    scope_id: string;
    profile_id: string;
    revision: number;
    missing: string | number;
  };
}
