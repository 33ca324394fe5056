import { InMemoryMemoryStore } from './in-memory-store.js';
import {
  describeMemoryStoreContract,
  describeSearchChannelsContract,
  describeSearchContract,
} from './index.js';
import { createMinimalRrfPolicy, minimalRrfPolicy } from './minimal-rrf-policy.js';

/** The in-memory fake proves itself against the same suites as the real adapters. */
describeMemoryStoreContract('in-memory', { createStore: async () => new InMemoryMemoryStore() });

describeSearchContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalRrfPolicy,
});

describeSearchChannelsContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: createMinimalRrfPolicy(['fts', 'vector', 'entity', 'graph']),
});
