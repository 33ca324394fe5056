import {
  type IdempotencyRecord,
  RevisionConflictError,
  type RevisionOperation,
} from '@powercontext/memory-core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';

/** Expired records a keyed write removes on its way, at most: the table stays bounded by the live keys. */
const PRUNE_BATCH = 100;

type RecordRow = Database['pc_idempotency_keys'];

/** The scope's record of `key` unless it expired at `now` (migration 0007). */
export async function findIdempotencyRecord(
  db: Kysely<Database>,
  scopeId: string,
  key: string,
  now: Date,
): Promise<IdempotencyRecord | undefined> {
  const { rows } = await sql<RecordRow>`
    SELECT idempotency_key, operation, request_digest, result, created_at, expires_at FROM pc_idempotency_keys
    WHERE scope_id = ${scopeId} AND idempotency_key = ${key} AND expires_at > ${now.toISOString()}::timestamptz`.execute(
    db,
  );
  const row = rows[0];
  return row
    ? {
        key: row.idempotency_key,
        operation: row.operation as RevisionOperation,
        requestDigest: row.request_digest,
        result: row.result,
        createdAt: new Date(row.created_at),
        expiresAt: new Date(row.expires_at),
      }
    : undefined;
}

/**
 * Writes the record in the write's transaction. First a bounded batch of the writing scope's expired
 * records goes (rows another transaction holds are skipped, not waited for): the prune stays on the
 * scope's own rows, so where the tables are distributed by scope it is a statement of one shard. A live record of the same key
 * means a concurrent duplicate committed first: RevisionConflictError rolls this write back, and the
 * caller re-reads the record and replays it. An expired one is overwritten.
 */
export async function insertIdempotencyRecord(
  trx: Kysely<Database>,
  scopeId: string,
  expectedRevision: number,
  record: IdempotencyRecord,
): Promise<void> {
  const now = record.createdAt.toISOString();
  await sql`
    DELETE FROM pc_idempotency_keys WHERE scope_id = ${scopeId} AND idempotency_key IN (
      SELECT idempotency_key FROM pc_idempotency_keys WHERE scope_id = ${scopeId} AND expires_at <= ${now}::timestamptz
      ORDER BY expires_at LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`.execute(trx);
  const { rows } = await sql<{ recorded: number }>`
    INSERT INTO pc_idempotency_keys AS k
      (scope_id, idempotency_key, operation, request_digest, result, created_at, expires_at)
    VALUES (${scopeId}, ${record.key}, ${record.operation}, ${record.requestDigest}, ${record.result},
      ${now}::timestamptz, ${record.expiresAt.toISOString()}::timestamptz)
    ON CONFLICT (scope_id, idempotency_key) DO UPDATE SET operation = excluded.operation,
      request_digest = excluded.request_digest, result = excluded.result, created_at = excluded.created_at,
      expires_at = excluded.expires_at
    WHERE k.expires_at <= excluded.created_at
    RETURNING 1 AS recorded`.execute(trx);
  if (rows.length === 0) throw new RevisionConflictError(scopeId, expectedRevision);
}
