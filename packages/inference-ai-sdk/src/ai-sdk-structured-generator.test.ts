import { InferenceError } from '@powercontext/inference';
import { ValidationError } from '@powercontext/memory-core';
import { APICallError, Output } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AI_SDK_GENERATOR_DEFAULTS, createAiSdkStructuredGenerator } from './ai-sdk-structured-generator.js';

// Output.object stays the real one; one test swaps in an output spec that skips validation, to show
// that the generator's own check catches an answer the SDK let through.
vi.mock('ai', async (importOriginal) => {
  const actual = await importOriginal<typeof import('ai')>();
  return { ...actual, Output: { ...actual.Output, object: vi.fn(actual.Output.object) } };
});

type DoGenerate = MockLanguageModelV3['doGenerate'];
type GenerateResult = Awaited<ReturnType<DoGenerate>>;

const schema = z.strictObject({ ranks: z.array(z.int()) });
const request = { system: 'You rank passages.', prompt: 'Rank these: a, b, c', schema };

/** A model answer with `text`, finish reason stop, and the given token counts (undefined = not reported). */
function answer(text: string, tokens: { input?: number; output?: number } = {}): GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: tokens.input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: tokens.output, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

/** A model whose n-th doGenerate call runs the n-th step (the last step repeats). */
function mockModel(...steps: DoGenerate[]) {
  let index = 0;
  return new MockLanguageModelV3({
    doGenerate: (options) => {
      const step = steps[Math.min(index, steps.length - 1)]!;
      index += 1;
      return step(options);
    },
  });
}

const answering =
  (text: string, tokens?: { input?: number; output?: number }): DoGenerate =>
  async () =>
    answer(text, tokens);

function serverError(status: number, retryAfterMs?: number): DoGenerate {
  return async () => {
    throw new APICallError({
      message: `HTTP ${status}`,
      url: 'http://provider.test/v1/chat/completions',
      requestBodyValues: {},
      statusCode: status,
      responseHeaders: retryAfterMs === undefined ? {} : { 'retry-after-ms': String(retryAfterMs) },
    });
  };
}

const never: DoGenerate = () => new Promise(() => undefined);

async function inferenceFailure(promise: Promise<unknown>): Promise<InferenceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(InferenceError.isInstance(error)).toBe(true);
  return error as InferenceError;
}

describe('createAiSdkStructuredGenerator with a mock model', () => {
  it('returns the parsed answer with one call, one request and the reported tokens', async () => {
    const model = mockModel(answering('{"ranks":[2,0,1]}', { input: 12, output: 5 }));
    const result = await createAiSdkStructuredGenerator({ model }).generate(request);
    expect(result.output).toEqual({ ranks: [2, 0, 1] });
    expect(result.usage).toEqual({
      requests: 1,
      calls: 1,
      inputTokens: 12,
      outputTokens: 5,
      totalTokens: 17,
    });
  });

  it('leaves token counts undefined when the model reports none', async () => {
    const model = mockModel(answering('{"ranks":[]}'));
    const { output, usage } = await createAiSdkStructuredGenerator({ model }).generate(request);
    expect(output).toEqual({ ranks: [] });
    expect(usage).toEqual({ requests: 1, calls: 1 });
    expect('inputTokens' in usage || 'outputTokens' in usage || 'totalTokens' in usage).toBe(false);
  });

  it('keeps a reported count and leaves the unreported ones undefined', async () => {
    const model = mockModel(answering('{"ranks":[0]}', { input: 9 }));
    const { usage } = await createAiSdkStructuredGenerator({ model }).generate(request);
    expect(usage).toEqual({ requests: 1, calls: 1, inputTokens: 9 });
  });

  it('sends the system text, the prompt, temperature 0, the JSON schema and an abort signal', async () => {
    const model = mockModel(answering('{"ranks":[0]}'));
    await createAiSdkStructuredGenerator({ model }).generate(request);

    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0]!;
    expect(call.temperature).toBe(0);
    expect(call.prompt).toEqual([
      { role: 'system', content: 'You rank passages.' },
      { role: 'user', content: [{ type: 'text', text: 'Rank these: a, b, c' }] },
    ]);
    expect(call.responseFormat).toMatchObject({
      type: 'json',
      schema: {
        type: 'object',
        properties: { ranks: { type: 'array', items: { type: 'integer' } } },
        required: ['ranks'],
        additionalProperties: false,
      },
    });
    expect(call.abortSignal).toBeInstanceOf(AbortSignal);
    expect(call.tools).toBeUndefined();
  });

  it.each([
    ['a string where an integer belongs', '{"ranks":["1"]}'],
    ['a fraction where an integer belongs', '{"ranks":[1.5]}'],
    ['an extra key under a strict schema', '{"ranks":[1],"why":"because"}'],
    ['a missing key', '{}'],
  ])('maps an answer with %s to inference_invalid_output, without retrying', async (_case, text) => {
    const model = mockModel(answering(text, { input: 4, output: 3 }));
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, maxRequests: 3 }).generate(request),
    );
    expect(failure.code).toBe('inference_invalid_output');
    expect(failure.retryable).toBe(false);
    // The tokens of the rejected answer were spent, so they are reported.
    expect(failure.usage).toEqual({ requests: 1, calls: 1, inputTokens: 4, outputTokens: 3, totalTokens: 7 });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it.each([
    ['truncated JSON', '{"ranks": [1,'],
    ['prose', 'The ranking is 1, 2, 3.'],
    ['an empty answer', ''],
  ])('maps %s to inference_invalid_output', async (_case, text) => {
    const model = mockModel(answering(text));
    const failure = await inferenceFailure(createAiSdkStructuredGenerator({ model }).generate(request));
    expect(failure.code).toBe('inference_invalid_output');
    expect(failure.usage).toEqual({ requests: 1, calls: 1 });
  });

  it('runs schema transforms once: the output is the schema output of the raw answer', async () => {
    const model = mockModel(answering('{"word":"abc"}'));
    const transforming = z.object({ word: z.string().transform((word) => word.length) });
    const { output } = await createAiSdkStructuredGenerator({ model }).generate({
      ...request,
      schema: transforming,
    });
    expect(output).toEqual({ word: 3 });
  });

  it('retries a retryable provider error and counts both requests, tokens of the answer only', async () => {
    const model = mockModel(serverError(500, 0), answering('{"ranks":[1]}', { input: 3, output: 2 }));
    const result = await createAiSdkStructuredGenerator({ model, maxRequests: 2 }).generate(request);
    expect(result.output).toEqual({ ranks: [1] });
    expect(result.usage).toEqual({ requests: 2, calls: 1, inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });

  it('gives up after maxRequests retryable failures with inference_unavailable and the requests spent', async () => {
    const model = mockModel(serverError(503, 0));
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, maxRequests: 3 }).generate(request),
    );
    expect(failure.code).toBe('inference_unavailable');
    expect(failure.retryable).toBe(true);
    expect(failure.usage).toEqual({ requests: 3, calls: 1 });
    expect(model.doGenerateCalls).toHaveLength(3);
  });

  it('sends one request when maxRequests is 1', async () => {
    const model = mockModel(serverError(500, 0));
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, maxRequests: 1 }).generate(request),
    );
    expect(failure.code).toBe('inference_unavailable');
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('maps a client error (HTTP 400) to a non-retryable inference_unavailable without retrying', async () => {
    const model = mockModel(serverError(400));
    const failure = await inferenceFailure(createAiSdkStructuredGenerator({ model }).generate(request));
    expect(failure.code).toBe('inference_unavailable');
    expect(failure.retryable).toBe(false);
    expect(failure.usage).toEqual({ requests: 1, calls: 1 });
  });

  it('times out even when the model ignores its abort signal', async () => {
    const model = mockModel(never);
    const started = Date.now();
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, timeoutSeconds: 0.1 }).generate(request),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(failure.code).toBe('inference_timeout');
    expect(failure.retryable).toBe(true);
    expect(failure.usage).toEqual({ requests: 1, calls: 1 });
  });

  it('bounds the backoff between retries by the same deadline', async () => {
    // The provider asks for a 5 s pause before the retry; the 0.2 s deadline ends the call first.
    const model = mockModel(serverError(429, 5000), answering('{"ranks":[]}'));
    const started = Date.now();
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, timeoutSeconds: 0.2 }).generate(request),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(failure.code).toBe('inference_timeout');
    expect(failure.usage).toEqual({ requests: 1, calls: 1 });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('passes one abort signal to the model and rethrows the caller abort unwrapped', async () => {
    const model = mockModel(never);
    const controller = new AbortController();
    const reason = new Error('user navigated away');
    const pending = createAiSdkStructuredGenerator({ model }).generate({
      ...request,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seen = model.doGenerateCalls[0]?.abortSignal;
    expect(seen?.aborted).toBe(false);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(seen?.aborted).toBe(true);
  });

  it('does not call the model when the caller signal is already aborted', async () => {
    const model = mockModel(answering('{"ranks":[]}'));
    const reason = new Error('too late');
    await expect(
      createAiSdkStructuredGenerator({ model }).generate({ ...request, signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('reports an unexpected model error as unavailable, keeping it as the cause', async () => {
    const boom = new Error('model crashed');
    const model = mockModel(async () => {
      throw boom;
    });
    const failure = await inferenceFailure(
      createAiSdkStructuredGenerator({ model, maxRequests: 3 }).generate(request),
    );
    expect(failure.code).toBe('inference_unavailable');
    expect(failure.cause).toBe(boom);
    expect(failure.usage).toEqual({ requests: 1, calls: 1 });
  });

  it('has defaults of 30 s and 2 requests', () => {
    expect(AI_SDK_GENERATOR_DEFAULTS).toEqual({ timeoutSeconds: 30, maxRequests: 2 });
    expect(Object.isFrozen(AI_SDK_GENERATOR_DEFAULTS)).toBe(true);
  });

  it('rejects invalid options with a ValidationError listing every field', () => {
    let thrown: unknown;
    try {
      createAiSdkStructuredGenerator({ model: mockModel(never), timeoutSeconds: -1, maxRequests: 1.5 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues.map((issue) => issue.field)).toEqual([
      'timeoutSeconds',
      'maxRequests',
    ]);
  });
});

describe('createAiSdkStructuredGenerator when the SDK lets an answer through unvalidated', () => {
  it('still fails with inference_invalid_output by checking the answer itself', async () => {
    const real = await vi.importActual<typeof import('ai')>('ai');
    vi.mocked(Output.object).mockImplementationOnce(((options: { schema: typeof schema }) => ({
      ...real.Output.object(options),
      parseCompleteOutput: async ({ text }: { text: string }) => JSON.parse(text),
    })) as unknown as typeof Output.object);
    const model = mockModel(answering('{"ranks":["1"]}', { input: 2, output: 1 }));

    const failure = await inferenceFailure(createAiSdkStructuredGenerator({ model }).generate(request));
    expect(vi.mocked(Output.object)).toHaveBeenCalledWith({ schema });
    expect(failure.code).toBe('inference_invalid_output');
    expect(failure.message).toContain('does not match the schema');
    expect(failure.usage).toEqual({ requests: 1, calls: 1, inputTokens: 2, outputTokens: 1, totalTokens: 3 });
  });
});
