import { describeTwoChannelParityContract, InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy, DEFAULT_BM25, RRF_K } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

// RFC 0013: with fts and vector only, the N-channel search answers exactly what the two-channel search
// of RFC 0002 answered, on every store, with the local embedder's vector weight and with equal weights.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const reference = (vector: number) => ({
  bm25: DEFAULT_BM25,
  rrfK: RRF_K,
  weights: { fts: 1, vector },
  fetchMultiplier: 4,
  fetchFloor: 32,
  lexicalFallback: true,
});

for (const vector of [0.1, 1]) {
  const retrievalPolicy = createRrfRetrievalPolicy({ channelWeights: { vector } });
  describeTwoChannelParityContract(`in-memory, vector weight ${vector}`, {
    createStore: async () => new InMemoryMemoryStore(),
    retrievalPolicy,
    reference: reference(vector),
  });
  describeTwoChannelParityContract(`PGlite, vector weight ${vector}`, {
    createStore: () => createPGliteMemoryStore(),
    retrievalPolicy,
    reference: reference(vector),
  });
  describeTwoChannelParityContract(`PostgreSQL, vector weight ${vector}`, {
    createStore: () => createPostgresMemoryStore({ connectionString: database.connectionString }),
    retrievalPolicy,
    reference: reference(vector),
  });
}
