import { InferenceError } from '@powercontext/inference';
import { EmbeddingFailedError, ValidationError } from '@powercontext/memory-core';
import { MockEmbeddingModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAiSdkEmbedder } from './ai-sdk-embedder.js';

type DoEmbed = MockEmbeddingModelV3['doEmbed'];

/** A mock model that embeds text `t` as [t.length, 1, 0, 0] (or whatever `vectorOf` says). */
function mockModel(
  vectorOf: (text: string) => number[] = (text) => [text.length, 1, 0, 0],
  doEmbed?: DoEmbed,
) {
  return new MockEmbeddingModelV3({
    maxEmbeddingsPerCall: null,
    doEmbed:
      doEmbed ??
      (async ({ values }) => ({
        embeddings: values.map(vectorOf),
        usage: { tokens: values.length },
        warnings: [],
      })),
  });
}

const profile = { id: 'test.mock@4', dimension: 4 };

async function failureOf(promise: Promise<unknown>): Promise<EmbeddingFailedError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(EmbeddingFailedError);
  return error as EmbeddingFailedError;
}

describe('createAiSdkEmbedder with a mock model', () => {
  it('returns one unit-length vector per text, in order', async () => {
    const model = mockModel();
    const embedder = createAiSdkEmbedder({ model, profile });
    const vectors = await embedder.embed(['abc', 'a']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]![0]).toBeCloseTo(3 / Math.sqrt(10), 12);
    expect(vectors[0]![1]).toBeCloseTo(1 / Math.sqrt(10), 12);
    expect(vectors[1]![0]).toBeCloseTo(1 / Math.sqrt(2), 12);
    expect(model.doEmbedCalls.map((call) => call.values)).toEqual([['abc', 'a']]);
  });

  it('exposes the profile with l2 normalisation and the neural default threshold 0.3', () => {
    expect(createAiSdkEmbedder({ model: mockModel(), profile }).profile).toEqual({
      id: 'test.mock@4',
      dimension: 4,
      normalization: 'l2',
      minCosine: 0.3,
    });
    const custom = createAiSdkEmbedder({ model: mockModel(), profile: { ...profile, minCosine: 0.5 } });
    expect(custom.profile.minCosine).toBe(0.5);
  });

  it('splits the texts into ceil(n / batchSize) calls and keeps the order across batches', async () => {
    const model = mockModel((text) => [Number(text), 1, 0, 0]);
    const texts = Array.from({ length: 7 }, (_, index) => String(index + 1));
    const vectors = await createAiSdkEmbedder({ model, profile, batchSize: 3 }).embed(texts);
    expect(model.doEmbedCalls.map((call) => call.values)).toEqual([['1', '2', '3'], ['4', '5', '6'], ['7']]);
    for (const [index, vector] of vectors.entries())
      expect(vector[0]! / vector[1]!).toBeCloseTo(index + 1, 10);
  });

  it('uses batches of 96 by default', async () => {
    const model = mockModel();
    await createAiSdkEmbedder({ model, profile }).embed(Array.from({ length: 200 }, () => 'x'));
    expect(model.doEmbedCalls.map((call) => call.values.length)).toEqual([96, 96, 8]);
  });

  it('makes no call for an empty list', async () => {
    const model = mockModel();
    expect(await createAiSdkEmbedder({ model, profile }).embed([])).toEqual([]);
    expect(model.doEmbedCalls).toHaveLength(0);
  });

  it('fails with invalid output when a vector does not have the profile dimension', async () => {
    const model = mockModel((text) => (text === 'bad' ? [1, 2, 3] : [1, 0, 0, 0]));
    const failure = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['good', 'bad']));
    expect(failure.code).toBe('embedding_failed');
    expect(failure.message).toContain('dimension 3');
    expect(failure.message).toContain('has dimension 4');
    expect(failure.retryable).toBe(false);
    const cause = failure.cause as InferenceError;
    expect(InferenceError.isInstance(cause)).toBe(true);
    expect(cause.code).toBe('inference_invalid_output');
    expect(cause.usage).toEqual({ requests: 1, calls: 1, inputTokens: 2 });
  });

  it('fails with invalid output when the model returns fewer vectors than texts', async () => {
    const model = mockModel(undefined, async () => ({ embeddings: [[1, 0, 0, 0]], warnings: [] }));
    const failure = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['one', 'two']));
    expect((failure.cause as InferenceError).code).toBe('inference_invalid_output');
    expect(failure.message).toContain('1 vectors for 2 texts');
  });

  it('fails with invalid output on non-finite values', async () => {
    const model = mockModel(() => [Number.NaN, 0, 0, 0]);
    const failure = await failureOf(createAiSdkEmbedder({ model, profile }).embed(['x']));
    expect((failure.cause as InferenceError).code).toBe('inference_invalid_output');
  });

  it('times out the whole call even when the model ignores its abort signal', async () => {
    const model = mockModel(undefined, () => new Promise(() => undefined));
    const started = Date.now();
    const failure = await failureOf(
      createAiSdkEmbedder({ model, profile, timeoutSeconds: 0.1 }).embed(['x']),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    const cause = failure.cause as InferenceError;
    expect(cause.code).toBe('inference_timeout');
    expect(cause.retryable).toBe(true);
    expect(cause.usage).toEqual({ requests: 1, calls: 1 });
  });

  it('passes one abort signal to the model and rethrows the caller abort unwrapped', async () => {
    let seen: AbortSignal | undefined;
    const model = mockModel(undefined, ({ abortSignal }) => {
      seen = abortSignal;
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const reason = new Error('user navigated away');
    const pending = createAiSdkEmbedder({ model, profile }).embed(['x'], { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen?.aborted).toBe(false);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(seen?.aborted).toBe(true);
  });

  it('does not call the model when the caller signal is already aborted', async () => {
    const model = mockModel();
    const reason = new Error('too late');
    await expect(
      createAiSdkEmbedder({ model, profile }).embed(['x'], { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(model.doEmbedCalls).toHaveLength(0);
  });

  it('reports an unexpected model error as unavailable, keeping it as the cause', async () => {
    const boom = new Error('model crashed');
    const model = mockModel(undefined, async () => {
      throw boom;
    });
    const failure = await failureOf(createAiSdkEmbedder({ model, profile, maxRequests: 3 }).embed(['x']));
    const cause = failure.cause as InferenceError;
    expect(cause.code).toBe('inference_unavailable');
    expect(cause.cause).toBe(boom);
    // A plain Error is not retryable for the AI SDK, so only one request went out.
    expect(model.doEmbedCalls).toHaveLength(1);
  });

  it('rejects invalid options with a ValidationError listing every field', () => {
    let thrown: unknown;
    try {
      createAiSdkEmbedder({
        model: mockModel(),
        profile: { id: ' ', dimension: 0, minCosine: 2 },
        timeoutSeconds: 0,
        maxRequests: 0,
        batchSize: 1.5,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues.map((issue) => issue.field)).toEqual([
      'profile.id',
      'profile.dimension',
      'profile.minCosine',
      'timeoutSeconds',
      'maxRequests',
      'batchSize',
    ]);
  });

  it.each([Number.NaN, -1, 86_401])('rejects timeoutSeconds %s', (timeoutSeconds) => {
    expect(() => createAiSdkEmbedder({ model: mockModel(), profile, timeoutSeconds })).toThrow(
      ValidationError,
    );
  });
});
