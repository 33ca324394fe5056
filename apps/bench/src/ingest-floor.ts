import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { vector } from '@electric-sql/pglite-pgvector';
import {
  contentHash,
  contextWindows,
  type LexicalProjectionPolicy,
  lexicalProjectionPolicy,
} from '@powercontext/memory-core';
import { createRuntime } from '@powercontext/runtime';
import pg from 'pg';
import type { IngestFloorResult } from './ingest-floor-report.js';
import { perSecond, round } from './measure.js';
import type { StoreKind } from './scale-args.js';
import { createThrowawayDatabase } from './throwaway-database.js';

/**
 * The ingest floor (issue 13): the same rows the product writes through `remember` (entry versions
 * with their tsvector and length, lexical projections with neighbour context and their postings,
 * vectors), written by hand-written batched SQL into the same tables with the same indexes, in a
 * database of its own (created and migrated by the product, so the schema is the product's). The
 * benchmark writes each batch to the product, then the same batch to the floor, so both see the same
 * load. The floor is timed from its first statement to its commit; its vectors come from the same
 * embedder, computed before the clock starts (the product's figure includes embedding: the embedder's
 * own cost is its row in the ingest table).
 */

/** One entry as the benchmark hands it to remember. */
export interface FloorEntry {
  text: string;
  kind: string;
  sources: { sourceId: string; locator?: string }[];
  position: { sourceId: string; order: number };
}

interface SqlClient {
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

async function postgresClient(url: string): Promise<SqlClient> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    query: async <Row>(text: string, params: unknown[] = []) =>
      (await client.query(text, params)).rows as Row[],
    close: () => client.end(),
  };
}

async function pgliteClient(dataDir: string): Promise<SqlClient> {
  // The layout the product's store uses: the PostgreSQL files under <dataDir>/pglite, with its extensions.
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pglite'), extensions: { vector, unaccent } });
  return {
    query: async <Row>(text: string, params: unknown[] = []) => (await db.query<Row>(text, params)).rows,
    close: () => db.close(),
  };
}

export interface IngestFloor {
  /** Writes one batch into the floor's database: one transaction, as remember does. */
  write(scopeId: string, entries: readonly FloorEntry[], vectors: readonly number[][]): Promise<void>;
  /** The floor's figures beside the product's entries/s. */
  result(productEntriesPerSecond: number): IngestFloorResult;
  close(): Promise<void>;
}

/**
 * Opens the floor's own fresh database of the same store kind: the product's runtime creates and
 * migrates it (and prepares the embedding profile: the same tables and indexes), then closes, and
 * the floor writes through a plain connection.
 */
export async function openIngestFloor(
  store: StoreKind,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<IngestFloor> {
  let client: SqlClient;
  let cleanup: () => Promise<void>;
  let policy: LexicalProjectionPolicy;
  let profileId: string;
  const prepare = async (storeEnv: Record<string, string>) => {
    const runtime = await createRuntime({ env: { ...env, ...storeEnv } });
    try {
      policy = lexicalProjectionPolicy(runtime.config.retrieval.contextWeights);
      if (policy.id !== runtime.capabilities().lexicalProjectionId) {
        throw new Error(`the floor's projection ${policy.id} is not the runtime's`);
      }
      profileId = runtime.capabilities().embeddingProfile.id;
    } finally {
      await runtime.close();
    }
  };
  if (store === 'postgres') {
    const database = await createThrowawayDatabase(databaseUrl);
    await prepare({ POWERCONTEXT_SERVER_DATABASE_URL: database.url });
    client = await postgresClient(database.url);
    cleanup = () => database.drop();
  } else {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-bench-floor-'));
    await prepare({ POWERCONTEXT_SERVER_DATA_DIR: dataDir });
    client = await pgliteClient(dataDir);
    cleanup = () => rm(dataDir, { recursive: true, force: true });
  }
  const config = (
    await client.query<{ value: string }>(`SELECT value FROM pc_settings WHERE key = 'text_search_config'`)
  )[0]!.value;
  // The vectors go in as the column's own type (a migration may change it, e.g. to sparsevec).
  const vectorType = (
    await client.query<{ type: string }>(
      `SELECT format_type(a.atttypid, NULL) AS type FROM pg_attribute a
     WHERE a.attrelid = 'pc_embeddings'::regclass AND a.attname = 'embedding'`,
    )
  )[0]!.type;
  if (!['vector', 'halfvec', 'sparsevec'].includes(vectorType)) {
    throw new Error(`the floor does not know the embedding column type ${vectorType}`);
  }
  const literalOf = (v: readonly number[]) =>
    vectorType === 'sparsevec'
      ? `{${v.flatMap((value, index) => (value === 0 ? [] : [`${index + 1}:${value}`])).join(',')}}/${v.length}`
      : `[${v.join(',')}]`;
  // Per-scope search statistics, when the schema keeps them: the floor keeps them too (one row each).
  const statistics =
    (
      await client.query<{ found: boolean }>(`SELECT to_regclass('pc_scope_statistics') IS NOT NULL AS found`)
    )[0]?.found === true;
  const heads = new Map<string, { artifactId: string; revision: number }>();
  let entries = 0;
  let milliseconds = 0;

  return {
    async write(scopeId, batch, vectors) {
      // Everything the rows need that is not SQL is computed before the clock starts.
      const ids = batch.map(() => randomUUID());
      const entryIds = batch.map(() => randomUUID());
      const hashes = batch.map((entry) => contentHash(entry.kind, entry.text));
      const members = new Map<string, { entryId: string; entryVersionId: string; order: number[] }[]>();
      batch.forEach((entry, index) => {
        const list = members.get(entry.position.sourceId) ?? [];
        list.push({ entryId: entryIds[index]!, entryVersionId: ids[index]!, order: [entry.position.order] });
        members.set(entry.position.sourceId, list);
      });
      const targets: string[] = [];
      const sources: string[] = [];
      const weights: number[] = [];
      const contexts = new Map<string, string>();
      for (const list of members.values()) {
        for (const [id, context] of contextWindows(list, policy)) {
          contexts.set(id, JSON.stringify(context));
          targets.push(id);
          sources.push(id);
          weights.push(1);
          for (const neighbour of context) {
            targets.push(id);
            sources.push(neighbour.entryVersionId);
            weights.push(neighbour.weight);
          }
        }
      }
      const vectorArray = `{${vectors.map((v) => `"${literalOf(v)}"`).join(',')}}`;
      const head = heads.get(scopeId);
      const revision = (head?.revision ?? 0) + 1;
      const artifactId = head?.artifactId ?? randomUUID();

      const started = performance.now();
      await client.query('BEGIN');
      try {
        if (head) {
          await client.query(`UPDATE pc_memories SET head_revision = $2 WHERE scope_id = $1`, [
            scopeId,
            revision,
          ]);
        } else {
          await client.query(
            `INSERT INTO pc_memories (scope_id, artifact_id, head_revision) VALUES ($1, $2, $3)`,
            [scopeId, artifactId, revision],
          );
        }
        await client.query(
          `INSERT INTO pc_revisions (scope_id, artifact_id, revision, operation) VALUES ($1, $2, $3, 'remember')`,
          [scopeId, artifactId, revision],
        );
        await client.query(
          `INSERT INTO pc_entry_versions (entry_version_id, scope_id, entry_id, version, previous_version_id, kind, text,
             content_hash, revision, operation, sources, position_source, position_order, metadata, state,
             search_vector, lexical_length)
           SELECT r.id, $1, r.entry_id, 1, NULL, r.kind, r.text, r.hash, $2, 'remember', r.sources, r.source,
             ARRAY[r.ord], '{}'::jsonb, 'active', d.tsv,
             (SELECT coalesce(sum(coalesce(array_length(t.positions, 1), 1)), 0) FROM unnest(d.tsv) t)
           FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::text[], $10::float8[])
             AS r(id, entry_id, kind, text, hash, sources, source, ord)
           CROSS JOIN LATERAL (SELECT to_tsvector($11::regconfig, unaccent(r.text)) AS tsv) d`,
          [
            scopeId,
            revision,
            ids,
            entryIds,
            batch.map((entry) => entry.kind),
            batch.map((entry) => entry.text),
            hashes,
            batch.map((entry) => JSON.stringify(entry.sources)),
            batch.map((entry) => entry.position.sourceId),
            batch.map((entry) => entry.position.order),
            config,
          ],
        );
        await client.query(
          `WITH parts AS MATERIALIZED (
             SELECT pt.target, pt.weight, v.lexical_length, v.search_vector
             FROM unnest($1::uuid[], $2::uuid[], $3::float8[]) AS pt(target, source, weight)
             JOIN pc_entry_versions v ON v.scope_id = $4 AND v.entry_version_id = pt.source
           ), sized AS (
             SELECT target, sum(weight * lexical_length) AS len FROM parts GROUP BY target
           ), inserted AS (
             INSERT INTO pc_lexical_projections (scope_id, entry_version_id, revision, policy_id, context, lexical_length)
             SELECT $4, z.target, $5, $6, c.context, z.len
             FROM sized z JOIN unnest($7::uuid[], $8::jsonb[]) AS c(id, context) ON c.id = z.target
             RETURNING projection_id, entry_version_id
           )
           INSERT INTO pc_lexical_postings (scope_id, lexeme, projection_id, tf)
           SELECT $4, t.lexeme, i.projection_id, sum(pt.weight * coalesce(array_length(t.positions, 1), 1))
           FROM parts pt JOIN inserted i ON i.entry_version_id = pt.target
           CROSS JOIN LATERAL unnest(pt.search_vector) t
           GROUP BY i.projection_id, t.lexeme`,
          [
            targets,
            sources,
            weights,
            scopeId,
            revision,
            policy.id,
            [...contexts.keys()],
            [...contexts.values()],
          ],
        );
        await client.query(
          `INSERT INTO pc_embeddings (entry_version_id, profile_id, scope_id, embedding)
           SELECT e.id, $2, $3, e.embedding FROM unnest($1::uuid[], $4::${vectorType}[]) AS e(id, embedding)`,
          [ids, profileId, scopeId, vectorArray],
        );
        if (statistics) {
          await client.query(
            `INSERT INTO pc_scope_statistics AS s (scope_id, revision, projections, projection_length, active_entries)
             SELECT $1, $2, count(*), sum(p.lexical_length), count(*) FROM pc_lexical_projections p
             WHERE p.scope_id = $1 AND p.revision = $2
             ON CONFLICT (scope_id) DO UPDATE SET revision = excluded.revision,
               projections = s.projections + excluded.projections,
               projection_length = s.projection_length + excluded.projection_length,
               active_entries = s.active_entries + excluded.active_entries`,
            [scopeId, revision],
          );
          await client.query(
            `INSERT INTO pc_scope_vector_statistics AS s (scope_id, profile_id, revision, missing) VALUES ($1, $2, $3, 0)
             ON CONFLICT (scope_id, profile_id) DO UPDATE SET revision = excluded.revision`,
            [scopeId, profileId, revision],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      milliseconds += performance.now() - started;
      heads.set(scopeId, { artifactId, revision });
      entries += batch.length;
    },
    result(productEntriesPerSecond) {
      const floor = perSecond(entries, milliseconds);
      return {
        entries,
        seconds: round(milliseconds / 1000, 3),
        entries_per_second: floor,
        product_ratio: floor > 0 ? round(productEntriesPerSecond / floor, 3) : 0,
      };
    },
    async close() {
      await client.close();
      await cleanup();
    },
  };
}
