import {
  describeMemoryStoreContract,
  describeSearchChannelsContract,
  describeSearchContract,
} from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresMemoryStore } from './create-store.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const createStore = () => createPostgresMemoryStore({ connectionString: database.connectionString });

describeMemoryStoreContract('PostgreSQL', { createStore });
describeSearchContract('PostgreSQL', { createStore, retrievalPolicy: createRrfRetrievalPolicy() });
describeSearchChannelsContract('PostgreSQL', {
  createStore,
  retrievalPolicy: createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'entity', 'graph'] }),
});

// The same search contract with every vector search forced through the profile's HNSW index.
describeSearchContract('PostgreSQL, HNSW path', {
  createStore: () =>
    createPostgresMemoryStore({ connectionString: database.connectionString, exactVectorScanLimit: 0 }),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
