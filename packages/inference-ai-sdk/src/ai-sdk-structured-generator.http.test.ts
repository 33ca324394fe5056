import { InferenceError } from '@powercontext/inference';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkStructuredGenerator } from './ai-sdk-structured-generator.js';
import { createLanguageModel } from './language-model.js';
import {
  chatCompletionAnswer,
  closedPort,
  type LoopbackServer,
  type Responder,
  scripted,
  sendJson,
  startLoopbackServer,
} from './testing/loopback-provider.js';

// These tests run the real adapter path: createLanguageModel -> AI SDK provider -> fetch -> HTTP on
// 127.0.0.1, against a server speaking the OpenAI chat-completions protocol.
const schema = z.strictObject({ ranks: z.array(z.int()) });
const request = {
  system: 'Rank the passages by relevance.',
  prompt: 'Query: tea. Passages: [0] cats [1] tea',
  schema,
};

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

async function inferenceFailure(promise: Promise<unknown>): Promise<InferenceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(InferenceError.isInstance(error)).toBe(true);
  return error as InferenceError;
}

const answering =
  (content: string): Responder =>
  (recorded, response) =>
    chatCompletionAnswer(response, recorded, content, {
      prompt_tokens: 21,
      completion_tokens: 6,
      total_tokens: 27,
    });

// retry-after-ms shortens the AI SDK's 2 s backoff before the next attempt.
const failing =
  (status: number): Responder =>
  (_recorded, response) =>
    sendJson(
      response,
      status,
      { error: { message: `upstream said ${status}`, type: 'server_error' } },
      { 'retry-after-ms': '10' },
    );

const providers = [
  { provider: 'openai', spec: 'openai:gpt-4o-mini', model: 'gpt-4o-mini', apiKey: 'sk-test' },
  {
    provider: 'openai-compatible',
    spec: 'openai-compatible:llama3.1:8b',
    model: 'llama3.1:8b',
    apiKey: undefined,
  },
] as const;

describe.each(providers)(
  'createAiSdkStructuredGenerator over HTTP with $provider',
  ({ spec, model: modelId, apiKey }) => {
    function generatorFor(baseUrl: string, options: { timeoutSeconds?: number; maxRequests?: number } = {}) {
      const model = createLanguageModel(spec, { baseUrl, apiKey });
      return createAiSdkStructuredGenerator({ model, ...options });
    }

    it('answers with the parsed output and the reported usage, sending temperature 0 and a JSON schema', async () => {
      const server = await serve(answering('{"ranks":[1,0]}'));
      const result = await generatorFor(server.baseUrl).generate(request);

      expect(result.output).toEqual({ ranks: [1, 0] });
      expect(result.usage).toEqual({
        requests: 1,
        calls: 1,
        inputTokens: 21,
        outputTokens: 6,
        totalTokens: 27,
      });
      expect(server.requests).toHaveLength(1);
      const [sent] = server.requests;
      expect(sent!.method).toBe('POST');
      expect(sent!.path).toBe('/v1/chat/completions');
      expect(sent!.headers.authorization).toBe(apiKey === undefined ? undefined : `Bearer ${apiKey}`);
      expect(sent!.body).toMatchObject({
        model: modelId,
        temperature: 0,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.prompt },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'response',
            strict: true,
            schema: {
              type: 'object',
              properties: { ranks: { type: 'array', items: { type: 'integer' } } },
              required: ['ranks'],
              additionalProperties: false,
            },
          },
        },
      });
      expect((sent!.body as { stream?: unknown }).stream).toBeFalsy();
    });

    it('leaves tokens undefined when the server reports no usage', async () => {
      const server = await serve((recorded, response) =>
        chatCompletionAnswer(response, recorded, '{"ranks":[]}', null),
      );
      const { output, usage } = await generatorFor(server.baseUrl).generate(request);
      expect(output).toEqual({ ranks: [] });
      expect(usage).toEqual({ requests: 1, calls: 1 });
    });

    it('retries after HTTP 500 and succeeds on the second request', async () => {
      const server = await serve(scripted(failing(500), answering('{"ranks":[2]}')));
      const result = await generatorFor(server.baseUrl, { maxRequests: 2 }).generate(request);
      expect(result.output).toEqual({ ranks: [2] });
      expect(result.usage).toEqual({
        requests: 2,
        calls: 1,
        inputTokens: 21,
        outputTokens: 6,
        totalTokens: 27,
      });
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
    });

    it('maps HTTP 500 twice to inference_unavailable after exactly maxRequests = 2 requests', async () => {
      const server = await serve(scripted(failing(500), failing(500), answering('{"ranks":[0]}')));
      const failure = await inferenceFailure(
        generatorFor(server.baseUrl, { maxRequests: 2 }).generate(request),
      );
      expect(failure.code).toBe('inference_unavailable');
      expect(failure.retryable).toBe(true);
      expect(failure.message).toContain('HTTP 500');
      expect(failure.usage).toEqual({ requests: 2, calls: 1 });
      expect(server.requests).toHaveLength(2);
    });

    it('maps HTTP 400 to a non-retryable inference_unavailable without retrying', async () => {
      const server = await serve(failing(400));
      const failure = await inferenceFailure(generatorFor(server.baseUrl).generate(request));
      expect(failure.code).toBe('inference_unavailable');
      expect(failure.retryable).toBe(false);
      expect(failure.usage).toEqual({ requests: 1, calls: 1 });
      expect(server.requests).toHaveLength(1);
    });

    it('maps connection refused to inference_unavailable', async () => {
      const port = await closedPort();
      const failure = await inferenceFailure(
        generatorFor(`http://127.0.0.1:${port}/v1`, { maxRequests: 1 }).generate(request),
      );
      expect(failure.code).toBe('inference_unavailable');
      expect(failure.retryable).toBe(true);
      expect(failure.message).toContain('Cannot reach the provider');
      // One attempt, whose connection was refused.
      expect(failure.usage).toEqual({ requests: 1, calls: 1 });
    });

    it('times out a server that never answers and closes the request', async () => {
      const server = await serve(() => {
        // Never answer.
      });
      const started = Date.now();
      const failure = await inferenceFailure(
        generatorFor(server.baseUrl, { timeoutSeconds: 0.3 }).generate(request),
      );
      const elapsed = Date.now() - started;

      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2000);
      expect(failure.code).toBe('inference_timeout');
      expect(failure.retryable).toBe(true);
      expect(failure.usage).toEqual({ requests: 1, calls: 1 });
      // The timeout is not retried, and the client hung up: no request is left open.
      expect(server.requests).toHaveLength(1);
      await server.requests[0]!.closed;
    });

    it('maps malformed JSON content to inference_invalid_output without retrying', async () => {
      const server = await serve(answering('{"ranks": [1,'));
      const failure = await inferenceFailure(generatorFor(server.baseUrl).generate(request));
      expect(failure.code).toBe('inference_invalid_output');
      expect(failure.retryable).toBe(false);
      expect(failure.usage).toEqual({
        requests: 1,
        calls: 1,
        inputTokens: 21,
        outputTokens: 6,
        totalTokens: 27,
      });
      expect(server.requests).toHaveLength(1);
    });

    it.each([
      ['a string rank', '{"ranks": ["1"]}'],
      ['a fractional rank', '{"ranks": [1.5]}'],
      ['an extra key', '{"ranks": [1], "reason": "tea matches"}'],
      ['another shape', '[1, 0]'],
    ])('maps schema-violating JSON (%s) to inference_invalid_output', async (_case, content) => {
      const server = await serve(answering(content));
      const failure = await inferenceFailure(generatorFor(server.baseUrl).generate(request));
      expect(failure.code).toBe('inference_invalid_output');
      expect(failure.usage).toMatchObject({ requests: 1, calls: 1 });
      expect(server.requests).toHaveLength(1);
    });

    it('rejects with the caller abort reason, not an InferenceError, and closes the request', async () => {
      const server = await serve(() => {
        // Never answer.
      });
      const controller = new AbortController();
      const reason = new Error('request cancelled by user');
      const pending = generatorFor(server.baseUrl).generate({ ...request, signal: controller.signal });
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await server.requests[0]!.closed;
      expect(server.requests).toHaveLength(1);
    });
  },
);
