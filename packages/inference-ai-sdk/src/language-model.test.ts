import { PowerContextError } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createLanguageModel } from './language-model.js';

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

describe('createLanguageModel', () => {
  it('builds an OpenAI chat-completions model (not the Responses API)', () => {
    const model = createLanguageModel('openai:gpt-4o-mini', { apiKey: 'k' });
    expect(model.specificationVersion).toBe('v3');
    expect(model.modelId).toBe('gpt-4o-mini');
    expect(model.provider).toBe('openai.chat');
  });

  it('builds an OpenAI-compatible chat model with structured outputs switched on', () => {
    const model = createLanguageModel('openai-compatible:llama3.1:8b', {
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
    expect(model.specificationVersion).toBe('v3');
    expect(model.modelId).toBe('llama3.1:8b');
    expect(model.provider).toBe('openai-compatible.chat');
    expect((model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs).toBe(true);
  });

  it.each([undefined, '', '   '])(
    'requires a base URL for openai-compatible (got %j) and names the variable',
    (baseUrl) => {
      const error = thrownBy(() => createLanguageModel('openai-compatible:llama3', { baseUrl }));
      expect(error.code).toBe('configuration_error');
      expect(error.message).toContain('POWERCONTEXT_SERVER_INFERENCE_BASE_URL');
    },
  );

  it('reports a bad spec as a configuration error that states the rule', () => {
    const error = thrownBy(() => createLanguageModel('anthropic:claude', {}));
    expect(error.code).toBe('configuration_error');
    expect(error.message).toContain('unknown provider "anthropic"');
    expect(error.message).toContain('"<provider>:<model>"');
    expect(error.cause).toBeInstanceOf(Error);
  });
});
