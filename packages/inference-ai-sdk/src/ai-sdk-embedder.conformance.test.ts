import { createHash } from 'node:crypto';
import { describeEmbedderConformance, type EmbedBackend } from '@powercontext/memory-core/testing';
import { createAiSdkEmbedder } from './ai-sdk-embedder.js';
import { createEmbeddingModel } from './embedding-model.js';
import {
  embeddingsAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';

// The Embedder conformance suite over the real adapter path: AI SDK provider -> fetch -> a loopback
// server speaking the OpenAI embeddings protocol, in batches of 50 (so 130 texts take 3 requests).
const DIMENSION = 8;
let servers: LoopbackServer[] = [];

/** A vector that depends on the text alone: 8 bytes of its SHA-256, centred on 0. */
function vectorOf(text: string): number[] {
  return [...createHash('sha256').update(text).digest().subarray(0, DIMENSION)].map((byte) => byte - 127.5);
}

function responderFor(backend: EmbedBackend): Responder {
  switch (backend.kind) {
    case 'healthy':
      return (request, response) => embeddingsAnswer(response, request, vectorOf);
    case 'fail':
      return (_request, response) =>
        sendJson(
          response,
          500,
          { error: { message: 'model crashed', type: 'server_error' } },
          { 'retry-after-ms': '5' },
        );
    case 'hang':
      return () => {};
  }
}

for (const spec of ['openai-compatible:nomic-embed-text', 'openai:text-embedding-3-small']) {
  describeEmbedderConformance(`AI SDK embedder (${spec}) over loopback HTTP`, {
    async create(backend) {
      const server = await startLoopbackServer(responderFor(backend));
      servers.push(server);
      const model = createEmbeddingModel(spec, { baseUrl: server.baseUrl, apiKey: 'sk-test' });
      return createAiSdkEmbedder({
        model,
        profile: { id: `${spec}@${DIMENSION}`, dimension: DIMENSION },
        batchSize: 50,
        timeoutSeconds: 10,
      });
    },
    async cleanup() {
      await Promise.all(servers.map((server) => server.close()));
      servers = [];
    },
  });
}
