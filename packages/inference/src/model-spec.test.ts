import { describe, expect, it } from 'vitest';
import { parseModelSpec } from './model-spec.js';

describe('parseModelSpec', () => {
  it('parses the openai provider', () => {
    expect(parseModelSpec('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
  });

  it('parses the openai-compatible provider', () => {
    expect(parseModelSpec('openai-compatible:llama3')).toEqual({
      provider: 'openai-compatible',
      model: 'llama3',
    });
  });

  it('splits at the first colon only, so model tags survive', () => {
    expect(parseModelSpec('openai-compatible:llama3.1:8b')).toEqual({
      provider: 'openai-compatible',
      model: 'llama3.1:8b',
    });
  });

  it.each([
    ['gpt-4o-mini', 'no ":"'],
    ['anthropic:claude', 'unknown provider "anthropic"'],
    ['OpenAI:gpt-4o', 'unknown provider "OpenAI"'],
    [':gpt-4o', 'unknown provider ""'],
    ['openai:', 'model name is empty'],
    ['openai:gpt 4o', 'whitespace'],
    ['', 'no ":"'],
  ])('rejects %j (%s) and names the rule', (spec, problem) => {
    expect(() => parseModelSpec(spec)).toThrow(problem);
    expect(() => parseModelSpec(spec)).toThrow('"<provider>:<model>"');
    expect(() => parseModelSpec(spec)).toThrow('"openai" or "openai-compatible"');
  });
});
