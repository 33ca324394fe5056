// packages/rerank-http/src/http-reranker.conformance.test.ts
import {
  type LoopbackServer,
  type Responder,
  rerankResponder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { describeRerankerConformance, type RerankBackend } from '@powercontext/memory-core/testing';
import { createHttpReranker } from './http-reranker.js';

let servers: LoopbackServer[] = [];

function responderFor(backend: RerankBackend): Responder {
  switch (backend.kind) {
    case 'judge': // relevant documents score 1, the rest 0; minScore 0.5 keeps only the former
      return rerankResponder((_query, document) => (backend.keeps(document) ? 1 : 0));
    case 'fail':
      return (_request, response) => sendJson(response, 500, { error: 'model crashed' });
    case 'hang':
      return () => {};
  }
}

describeRerankerConformance('HTTP reranker over a loopback /v1/rerank server', {
  async create(backend) {
    const server = await startLoopbackServer(responderFor(backend));
    servers.push(server);
    return createHttpReranker({ baseUrl: server.baseUrl, model: 'bge-reranker-v2-m3', minScore: 0.5 });
  },
  async cleanup() {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  },
});
