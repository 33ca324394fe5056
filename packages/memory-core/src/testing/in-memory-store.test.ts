import { InMemoryMemoryStore } from './in-memory-store.js';
import { describeMemoryStoreContract, describeSearchContract } from './index.js';
import { minimalRrfPolicy } from './minimal-rrf-policy.js';

/** The in-memory fake proves itself against the same suites as the real adapters. */
describeMemoryStoreContract('in-memory', { createStore: async () => new InMemoryMemoryStore() });

describeSearchContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalRrfPolicy,
});
