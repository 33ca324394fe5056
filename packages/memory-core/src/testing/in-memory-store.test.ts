import { authorityWeightsSchema, hasAuthority } from '../domain/authority.js';
import { InMemoryMemoryStore } from './in-memory-store.js';
import {
  describeAuthorityContract,
  describeMemoryStoreContract,
  describeMultiScopeSearchContract,
  describeSearchChannelsContract,
  describeSearchContract,
  describeSteeringContract,
} from './index.js';
import { createMinimalRrfPolicy, minimalRrfPolicy } from './minimal-rrf-policy.js';

/** The in-memory fake proves itself against the same suites as the real adapters. */
describeMemoryStoreContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  exportRoundTripEntries: 1_000,
});

describeSearchContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalRrfPolicy,
});

describeMultiScopeSearchContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalRrfPolicy,
});

describeSearchChannelsContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: createMinimalRrfPolicy(['fts', 'vector', 'entity', 'graph']),
});

describeSteeringContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  retrievalPolicy: minimalRrfPolicy,
});

describeAuthorityContract('in-memory', {
  createStore: async () => new InMemoryMemoryStore(),
  policy: (authority) => {
    const weights = authorityWeightsSchema.parse(authority);
    if (!hasAuthority(weights)) return minimalRrfPolicy;
    return {
      ...minimalRrfPolicy,
      id: `${minimalRrfPolicy.id}(authority=${JSON.stringify(weights)})`,
      authority: weights,
    };
  },
});
