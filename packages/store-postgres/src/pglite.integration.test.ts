import {
  describeMemoryStoreContract,
  describeSearchChannelsContract,
  describeSearchContract,
} from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { createPGliteMemoryStore } from './create-store.js';

// One in-memory PGlite per suite; every test works in scopes of its own.
describeMemoryStoreContract('PGlite', { createStore: () => createPGliteMemoryStore() });
describeSearchContract('PGlite', {
  createStore: () => createPGliteMemoryStore(),
  retrievalPolicy: createRrfRetrievalPolicy(),
});
describeSearchChannelsContract('PGlite', {
  createStore: () => createPGliteMemoryStore(),
  retrievalPolicy: createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'entity', 'graph'] }),
});
