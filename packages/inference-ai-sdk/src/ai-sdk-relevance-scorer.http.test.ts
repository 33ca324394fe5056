import { InferenceError } from '@powercontext/inference';
import { afterEach, describe, expect, it } from 'vitest';
import { createAiSdkRelevanceScorer } from './ai-sdk-relevance-scorer.js';
import { createRerankEndpointModel } from './rerank-endpoint-model.js';
import {
  closedPort,
  type LoopbackServer,
  type Responder,
  scripted,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';
import { rerankAnswer, rerankResponder } from './testing/loopback-rerank.js';

// The real adapter path: rerank() of the AI SDK -> the endpoint model -> fetch -> HTTP on 127.0.0.1,
// against a server speaking the rerank protocol of llama.cpp and vLLM.
const DOCUMENTS = ['slugs ate the lettuce', 'the council approved the garden', 'we water on tuesdays'];
const QUERY = 'who approved the garden?';

let servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function scorerFor(
  respond: Responder,
  options: { timeoutSeconds?: number; maxRequests?: number; apiKey?: string } = {},
) {
  const server = await startLoopbackServer(respond);
  servers.push(server);
  const scorer = createAiSdkRelevanceScorer({
    model: createRerankEndpointModel({
      model: 'bge-reranker-v2-m3',
      baseUrl: server.baseUrl,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    }),
    modelId: 'openai-compatible:bge-reranker-v2-m3',
    ...options,
  });
  return { server, scorer };
}

async function inferenceFailure(promise: Promise<unknown>): Promise<InferenceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(InferenceError.isInstance(error)).toBe(true);
  return error as InferenceError;
}

const fail =
  (status: number): Responder =>
  (_request, response) =>
    sendJson(response, status, { error: { message: `upstream said ${status}` } }, { 'retry-after-ms': '5' });

describe('createAiSdkRelevanceScorer over the rerank protocol', () => {
  it('asks for every document in one request and reports scores, documents and tokens', async () => {
    const { server, scorer } = await scorerFor(rerankResponder(), { apiKey: 'sk-rerank' });
    const result = await scorer.score({ query: QUERY, documents: DOCUMENTS });
    expect(scorer.modelId).toBe('openai-compatible:bge-reranker-v2-m3');
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/rerank');
    expect(request!.headers.authorization).toBe('Bearer sk-rerank');
    expect(request!.body).toEqual({
      model: 'bge-reranker-v2-m3',
      query: QUERY,
      documents: DOCUMENTS,
      top_n: 3,
    });
    expect([...result.results].sort((a, b) => a.index - b.index)).toEqual([
      { index: 0, score: 1 },
      { index: 1, score: 3 },
      { index: 2, score: 0 },
    ]);
    expect(result.usage).toEqual({ requests: 1, calls: 1, documents: 3, inputTokens: 15, totalTokens: 15 });
  });

  it('leaves tokens undefined when the server reports none', async () => {
    const { scorer } = await scorerFor(rerankResponder(undefined, { usage: null }));
    const { usage } = await scorer.score({ query: QUERY, documents: DOCUMENTS });
    expect(usage).toEqual({ requests: 1, calls: 1, documents: 3 });
  });

  it('passes partial and repeated answers on as given, for the policy to judge', async () => {
    const { scorer } = await scorerFor(
      rerankResponder(undefined, { results: (results) => [results[0]!, results[0]!] }),
    );
    const { results } = await scorer.score({ query: QUERY, documents: DOCUMENTS });
    expect(results).toEqual([
      { index: 1, score: 3 },
      { index: 1, score: 3 },
    ]);
  });

  it('reports an index outside the documents as invalid output, without retrying', async () => {
    const { server, scorer } = await scorerFor(
      rerankResponder(undefined, { results: (results) => [...results, { index: 3, relevance_score: 9 }] }),
    );
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error.code).toBe('inference_invalid_output');
    expect(error.usage).toEqual({ requests: 1, calls: 1, documents: 3 });
    expect(server.requests).toHaveLength(1);
  });

  it.each<[string, Responder]>([
    ['a body that is not JSON', (_request, response) => response.writeHead(200).end('<html>oops</html>')],
    ['a body without results', (_request, response) => sendJson(response, 200, { data: [] })],
    [
      'a score that is not a number',
      (_request, response) => sendJson(response, 200, { results: [{ index: 0, relevance_score: 'high' }] }),
    ],
  ])('reports %s as invalid output', async (_name, respond) => {
    const { scorer } = await scorerFor(respond);
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error.code).toBe('inference_invalid_output');
  });

  it('retries a 500 up to the request bound, then reports unavailable with what was sent', async () => {
    const { server, scorer } = await scorerFor(fail(500), { maxRequests: 2 });
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error.code).toBe('inference_unavailable');
    expect(error.retryable).toBe(true);
    expect(error.usage).toEqual({ requests: 2, calls: 1, documents: 6 });
    expect(server.requests).toHaveLength(2);
  });

  it('recovers when a retry succeeds', async () => {
    const { server, scorer } = await scorerFor(
      scripted(fail(503), (request, response) => rerankAnswer(response, request, () => 1)),
    );
    const { usage } = await scorer.score({ query: QUERY, documents: DOCUMENTS });
    expect(usage).toMatchObject({ requests: 2, calls: 1, documents: 6 });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 400 and marks it not retryable', async () => {
    const { server, scorer } = await scorerFor(fail(400));
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error).toMatchObject({ code: 'inference_unavailable', retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('times out at its deadline and closes the request', async () => {
    const { server, scorer } = await scorerFor(() => {}, { timeoutSeconds: 0.2 });
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error.code).toBe('inference_timeout');
    await server.requests[0]!.closed;
  });

  it('reports a refused connection as unavailable', async () => {
    const port = await closedPort();
    const scorer = createAiSdkRelevanceScorer({
      model: createRerankEndpointModel({ model: 'm', baseUrl: `http://127.0.0.1:${port}/v1` }),
      maxRequests: 1,
    });
    expect(scorer.modelId).toBe('openai-compatible.rerank:m');
    const error = await inferenceFailure(scorer.score({ query: QUERY, documents: DOCUMENTS }));
    expect(error.code).toBe('inference_unavailable');
  });

  it("rethrows the caller's own abort as is", async () => {
    const { scorer } = await scorerFor(() => {});
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = scorer.score({ query: QUERY, documents: DOCUMENTS, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing for no documents', async () => {
    const { server, scorer } = await scorerFor(rerankResponder());
    expect(await scorer.score({ query: QUERY, documents: [] })).toEqual({
      results: [],
      usage: { requests: 0, calls: 1, documents: 0 },
    });
    expect(server.requests).toHaveLength(0);
  });
});
