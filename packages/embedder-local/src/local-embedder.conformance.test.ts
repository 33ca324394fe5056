import { describeEmbedderConformance } from '@powercontext/memory-core/testing';
import { createLocalEmbedder } from './local-embedder.js';

// The local embedder hashes in-process: there is no backend that could fail or hang.
for (const dimension of [1024, 16]) {
  describeEmbedderConformance(`local hash embedder @${dimension}`, {
    create: () => createLocalEmbedder({ dimension }),
    local: true,
  });
}
