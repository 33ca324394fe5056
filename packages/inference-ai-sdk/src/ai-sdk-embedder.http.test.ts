import { InferenceError } from '@powercontext/inference';
import { EmbeddingFailedError } from '@powercontext/memory-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createAiSdkEmbedder } from './ai-sdk-embedder.js';
import { createEmbeddingModel } from './embedding-model.js';
import {
  closedPort,
  embeddingsAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';

// These tests run the real adapter path: AI SDK provider -> fetch -> HTTP on 127.0.0.1.
const profile = { id: 'test.http@3', dimension: 3 };
const vectorOf = (text: string) => [text.length, 2, 0];

let servers: LoopbackServer[] = [];

async function serve(respond: Responder): Promise<LoopbackServer> {
  const server = await startLoopbackServer(respond);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function failureOf(
  promise: Promise<unknown>,
): Promise<{ failure: EmbeddingFailedError; cause: InferenceError }> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(EmbeddingFailedError);
  const cause = (error as EmbeddingFailedError).cause;
  expect(InferenceError.isInstance(cause)).toBe(true);
  return { failure: error as EmbeddingFailedError, cause: cause as InferenceError };
}

describe('createAiSdkEmbedder over HTTP (OpenAI embeddings protocol)', () => {
  it('embeds through openai:<model>, sending the model, the texts and the key', async () => {
    const server = await serve((request, response) => embeddingsAnswer(response, request, vectorOf));
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
    });
    const vectors = await createAiSdkEmbedder({ model, profile }).embed(['hello', 'hi']);

    expect(vectors[0]![0]).toBeCloseTo(5 / Math.sqrt(29), 12);
    expect(vectors[0]![1]).toBeCloseTo(2 / Math.sqrt(29), 12);
    expect(vectors[1]![0]).toBeCloseTo(2 / Math.sqrt(8), 12);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/v1/embeddings');
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toMatchObject({ model: 'text-embedding-3-small', input: ['hello', 'hi'] });
  });

  it('embeds through openai-compatible:<model> in batches', async () => {
    const server = await serve((request, response) => embeddingsAnswer(response, request, vectorOf));
    const model = createEmbeddingModel('openai-compatible:nomic-embed-text', { baseUrl: server.baseUrl });
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await createAiSdkEmbedder({ model, profile, batchSize: 2 }).embed(texts);

    expect(server.requests.map((request) => (request.body as { input: string[] }).input)).toEqual([
      ['a', 'bb'],
      ['ccc', 'dddd'],
      ['eeeee'],
    ]);
    expect(server.requests.every((request) => request.path === '/v1/embeddings')).toBe(true);
    expect(server.requests[0]!.body).toMatchObject({ model: 'nomic-embed-text' });
    for (const [index, vector] of vectors.entries())
      expect(vector[0]! / vector[1]!).toBeCloseTo((index + 1) / 2, 12);
  });

  it('maps HTTP 500 to inference_unavailable after exactly maxRequests = 2 requests', async () => {
    const server = await serve((_request, response) =>
      // retry-after-ms shortens the AI SDK's 2 s backoff before the second attempt.
      sendJson(
        response,
        500,
        { error: { message: 'upstream exploded', type: 'server_error' } },
        { 'retry-after-ms': '10' },
      ),
    );
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const { failure, cause } = await failureOf(
      createAiSdkEmbedder({ model, profile, maxRequests: 2 }).embed(['x']),
    );

    expect(server.requests).toHaveLength(2);
    expect(cause.code).toBe('inference_unavailable');
    expect(cause.retryable).toBe(true);
    expect(cause.usage).toEqual({ requests: 2, calls: 1 });
    expect(cause.message).toContain('HTTP 500');
    expect(failure.retryable).toBe(true);
  });

  it('sends a single request when maxRequests is 1', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 503, { error: { message: 'overloaded', type: 'server_error' } }),
    );
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const { cause } = await failureOf(createAiSdkEmbedder({ model, profile, maxRequests: 1 }).embed(['x']));
    expect(server.requests).toHaveLength(1);
    expect(cause.code).toBe('inference_unavailable');
  });

  it('maps HTTP 429 to inference_unavailable', async () => {
    const server = await serve((_request, response) =>
      sendJson(
        response,
        429,
        { error: { message: 'rate limited', type: 'rate_limit' } },
        { 'retry-after-ms': '0' },
      ),
    );
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const { cause } = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect(cause.code).toBe('inference_unavailable');
    expect(cause.retryable).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('maps HTTP 401 to a non-retryable inference_unavailable without retrying', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 401, { error: { message: 'bad key', type: 'invalid_request_error' } }),
    );
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const { failure, cause } = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect(server.requests).toHaveLength(1);
    expect(cause.code).toBe('inference_unavailable');
    expect(cause.retryable).toBe(false);
    expect(failure.retryable).toBe(false);
  });

  it('maps connection refused to inference_unavailable', async () => {
    const port = await closedPort();
    const model = createEmbeddingModel('openai-compatible:nomic-embed-text', {
      baseUrl: `http://127.0.0.1:${port}/v1`,
    });
    const { cause } = await failureOf(createAiSdkEmbedder({ model, profile, maxRequests: 1 }).embed(['x']));
    expect(cause.code).toBe('inference_unavailable');
    expect(cause.retryable).toBe(true);
    expect(cause.message).toContain('Cannot reach the provider');
    expect(JSON.stringify(chainCodes(cause))).toContain('ECONNREFUSED');
  });

  it('times out a server that never answers within the deadline and aborts the request', async () => {
    const server = await serve(() => {
      // Never answer.
    });
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const started = Date.now();
    const { failure, cause } = await failureOf(
      createAiSdkEmbedder({ model, profile, timeoutSeconds: 0.2 }).embed(['x']),
    );
    const elapsed = Date.now() - started;

    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2000);
    expect(failure.code).toBe('embedding_failed');
    expect(cause.code).toBe('inference_timeout');
    expect(cause.usage).toEqual({ requests: 1, calls: 1 });
    // A timeout is not retried inside the call, and the client hung up.
    expect(server.requests).toHaveLength(1);
    await server.requests[0]!.closed;
  });

  it('rethrows the caller abort as is, while the request is in flight', async () => {
    const server = await serve(() => {
      // Never answer.
    });
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const controller = new AbortController();
    const reason = new Error('request cancelled by user');
    const pending = createAiSdkEmbedder({ model, profile }).embed(['x'], { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await server.requests[0]!.closed;
  });

  it('maps a malformed JSON body to inference_invalid_output, without retrying', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data": [{"index": 0, "embedding": [0.1, 0.2');
    });
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      baseUrl: server.baseUrl,
      apiKey: 'k',
    });
    const { failure, cause } = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect(cause.code).toBe('inference_invalid_output');
    expect(cause.retryable).toBe(false);
    expect(failure.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('maps well-formed JSON of the wrong shape to inference_invalid_output', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, { result: 'not embeddings' }));
    const model = createEmbeddingModel('openai-compatible:m', { baseUrl: server.baseUrl });
    const { cause } = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect(cause.code).toBe('inference_invalid_output');
  });

  it('rejects vectors of the wrong dimension from the server', async () => {
    const server = await serve((request, response) =>
      embeddingsAnswer(response, request, () => [1, 2, 3, 4]),
    );
    const model = createEmbeddingModel('openai-compatible:m', { baseUrl: server.baseUrl });
    const { failure, cause } = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect(cause.code).toBe('inference_invalid_output');
    expect(failure.message).toContain('dimension 4');
  });
});

/** Collects the `code` properties along an error's cause chain. */
function chainCodes(error: unknown): unknown[] {
  const codes: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    codes.push((current as Error & { code?: unknown }).code);
    current = current.cause;
  }
  return codes;
}
