import { describeTwoChannelParityContract, InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';
import { twoChannelReference } from './testing-support/two-channel-reference.js';

// RFC 0013: with fts and vector only, the N-channel search answers exactly what the two-channel search
// of RFC 0002 answered, on every store, with the local embedder's vector weight and with equal weights.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

for (const vector of [0.1, 1]) {
  const retrievalPolicy = createRrfRetrievalPolicy({ channelWeights: { vector } });
  describeTwoChannelParityContract(`in-memory, vector weight ${vector}`, {
    createStore: async () => new InMemoryMemoryStore(),
    retrievalPolicy,
    reference: twoChannelReference(vector),
  });
  describeTwoChannelParityContract(`PGlite, vector weight ${vector}`, {
    createStore: () => createPGliteMemoryStore(),
    retrievalPolicy,
    reference: twoChannelReference(vector),
  });
  describeTwoChannelParityContract(`PostgreSQL, vector weight ${vector}`, {
    createStore: () => createPostgresMemoryStore({ connectionString: database.connectionString }),
    retrievalPolicy,
    reference: twoChannelReference(vector),
  });
}
