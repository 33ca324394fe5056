import { describeAuthorityContract, describeSteeringContract } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

// RFC 0014 on both SQL backends: entry fields, filters inside the channels (exact and HNSW vector paths).
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describeSteeringContract('PGlite', {
  createStore: () => createPGliteMemoryStore(),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
describeSteeringContract('PostgreSQL', {
  createStore: () => createPostgresMemoryStore({ connectionString: database.connectionString }),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
describeSteeringContract('PostgreSQL, HNSW path', {
  createStore: () =>
    createPostgresMemoryStore({ connectionString: database.connectionString, exactVectorScanLimit: 0 }),
  retrievalPolicy: createRrfRetrievalPolicy(),
});

// RFC 0014, "Authority after fusion", with the shipped RRF policy.
describeAuthorityContract('PGlite', {
  createStore: () => createPGliteMemoryStore(),
  policy: (authority) => createRrfRetrievalPolicy({ authority }),
});
describeAuthorityContract('PostgreSQL', {
  createStore: () => createPostgresMemoryStore({ connectionString: database.connectionString }),
  policy: (authority) => createRrfRetrievalPolicy({ authority }),
});
