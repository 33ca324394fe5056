import { PowerContextError } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createEmbeddingModel } from './embedding-model.js';

function thrownBy(action: () => unknown): PowerContextError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(PowerContextError.isInstance(thrown)).toBe(true);
  return thrown as PowerContextError;
}

describe('createEmbeddingModel', () => {
  it('builds an OpenAI embedding model', () => {
    const model = createEmbeddingModel('openai:text-embedding-3-small', { apiKey: 'k' });
    expect(model.specificationVersion).toBe('v3');
    expect(model.modelId).toBe('text-embedding-3-small');
    expect(model.provider).toBe('openai.embedding');
  });

  it('builds an OpenAI-compatible embedding model named openai-compatible', () => {
    const model = createEmbeddingModel('openai-compatible:nomic-embed-text:v1.5', {
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
    expect(model.modelId).toBe('nomic-embed-text:v1.5');
    expect(model.provider).toBe('openai-compatible.embedding');
  });

  it.each([undefined, '', '   '])(
    'requires a base URL for openai-compatible (got %j) and names the variable',
    (baseUrl) => {
      const error = thrownBy(() => createEmbeddingModel('openai-compatible:llama3', { baseUrl }));
      expect(error.code).toBe('configuration_error');
      expect(error.message).toContain('POWERCONTEXT_SERVER_INFERENCE_BASE_URL');
    },
  );

  it('reports a bad spec as a configuration error that states the rule', () => {
    const error = thrownBy(() => createEmbeddingModel('cohere:embed-v4', {}));
    expect(error.code).toBe('configuration_error');
    expect(error.message).toContain('unknown provider "cohere"');
    expect(error.message).toContain('"<provider>:<model>"');
    expect(error.cause).toBeInstanceOf(Error);
  });
});
