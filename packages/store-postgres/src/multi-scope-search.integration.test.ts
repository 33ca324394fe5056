import { describeMultiScopeSearchContract } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

// Issue 29, "Several scopes": the multi-scope search contract on PGlite, PostgreSQL and its HNSW path.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describeMultiScopeSearchContract('PGlite', {
  createStore: () => createPGliteMemoryStore(),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
describeMultiScopeSearchContract('PostgreSQL', {
  createStore: () => createPostgresMemoryStore({ connectionString: database.connectionString }),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
describeMultiScopeSearchContract('PostgreSQL, HNSW path', {
  createStore: () =>
    createPostgresMemoryStore({ connectionString: database.connectionString, exactVectorScanLimit: 0 }),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
