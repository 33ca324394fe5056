import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { defaultDatabaseUrl } from './scale-args.js';
import { approximateScopes } from './search-floor.js';
import { createThrowawayDatabase } from './throwaway-database.js';

describe('approximateScopes (needs the PostgreSQL server with pgvector; never skips)', () => {
  it('names the scopes whose own valid HNSW index the store walks, quotes and all, and no other scope', async () => {
    const database = await createThrowawayDatabase(defaultDatabaseUrl());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      await client.query('CREATE TABLE pc_embeddings (profile_id text, scope_id text, embedding vector(3))');
      // The predicate as hnsw-indexes.ts writes it.
      const index = (name: string, scope: string) =>
        client.query(
          `CREATE INDEX ${name} ON pc_embeddings USING hnsw ((embedding::vector(3)) vector_cosine_ops) ` +
            `WHERE profile_id = 'local:v1' AND (scope_id || '') = '${scope.replaceAll("'", "''")}'`,
        );
      await index('pc_embeddings_scope_hnsw_a', 'bench:scope-0');
      await index('pc_embeddings_scope_hnsw_b', "it's:scope");
      await index('pc_embeddings_other_c', 'bench:scope-1');
      expect([...(await approximateScopes(client))].sort()).toEqual(['bench:scope-0', "it's:scope"]);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
