import { describeRelevanceScorerConformance, type ScorerBackend } from '@powercontext/inference/testing';
import { createAiSdkRelevanceScorer } from './ai-sdk-relevance-scorer.js';
import { createRerankEndpointModel } from './rerank-endpoint-model.js';
import {
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';
import { rerankResponder } from './testing/loopback-rerank.js';

// The RelevanceScorer conformance suite over the real adapter path: AI SDK rerank() -> our endpoint
// model -> fetch -> a loopback server speaking the rerank protocol of llama.cpp and vLLM.
let servers: LoopbackServer[] = [];

function responderFor(backend: ScorerBackend): Responder {
  switch (backend.kind) {
    case 'score':
      return rerankResponder((_query, document, index) => backend.scoreOf(document, index), {
        usage:
          backend.inputTokens === undefined
            ? null
            : { prompt_tokens: backend.inputTokens, total_tokens: backend.inputTokens },
      });
    case 'invalid':
      return rerankResponder(undefined, {
        results: (results) => [...results, { index: results.length, relevance_score: 1 }],
      });
    case 'fail':
      return (_request, response) =>
        sendJson(response, 500, { error: 'model crashed' }, { 'retry-after-ms': '5' });
    case 'hang':
      return () => {};
  }
}

describeRelevanceScorerConformance('AI SDK relevance scorer over loopback HTTP', {
  async create(backend, { timeoutMs }) {
    const server = await startLoopbackServer(responderFor(backend));
    servers.push(server);
    return createAiSdkRelevanceScorer({
      model: createRerankEndpointModel({ model: 'bge-reranker-v2-m3', baseUrl: server.baseUrl }),
      timeoutSeconds: timeoutMs / 1000,
      maxRequests: 2,
    });
  },
  async cleanup() {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  },
});
