import { createAiSdkRelevanceScorer, createRerankEndpointModel } from '@powercontext/inference-ai-sdk';
import {
  type LoopbackServer,
  type Responder,
  rerankResponder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { describeRerankerConformance, type RerankBackend } from '@powercontext/memory-core/testing';
import { createCrossEncoderReranker } from './cross-encoder-reranker.js';

// The MemoryReranker conformance suite over the whole cross-encoder path: policy -> RelevanceScorer ->
// AI SDK rerank() -> fetch -> a loopback server speaking the `POST /v1/rerank` protocol.
let servers: LoopbackServer[] = [];

function responderFor(backend: RerankBackend): Responder {
  switch (backend.kind) {
    case 'judge':
      // Relevant documents score 1, the rest 0; the reranker's minScore of 0.5 keeps only the former.
      return rerankResponder((_query, document) => (backend.keeps(document) ? 1 : 0));
    case 'fail':
      return (_request, response) =>
        sendJson(response, 500, { error: 'model crashed' }, { 'retry-after-ms': '5' });
    case 'hang':
      return () => {};
  }
}

describeRerankerConformance('cross-encoder reranker over a loopback rerank endpoint', {
  async create(backend) {
    const server = await startLoopbackServer(responderFor(backend));
    servers.push(server);
    const scorer = createAiSdkRelevanceScorer({
      model: createRerankEndpointModel({ model: 'bge-reranker-v2-m3', baseUrl: server.baseUrl }),
      modelId: 'openai-compatible:bge-reranker-v2-m3',
      timeoutSeconds: 10,
      maxRequests: 2,
    });
    return createCrossEncoderReranker({ scorer, minScore: 0.5 });
  },
  async cleanup() {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  },
});
