import { describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from './runtime-config.js';

describe('rerank model settings (cross-encoder policy)', () => {
  it('accepts the cross-encoder policy and reads the rerank model with the shared base URL and generation bounds', () => {
    const config = loadRuntimeConfig({
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'cross-encoder',
      POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL: 'openai-compatible:bge-reranker-v2-m3',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:8080/v1',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '5',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE: '-1.5',
    });
    expect(config.rerank.policy).toBe('cross-encoder');
    expect(config.rerank.minScore).toBe(-1.5);
    expect(config.rerankModel).toEqual({
      model: 'openai-compatible:bge-reranker-v2-m3',
      baseUrl: 'http://127.0.0.1:8080/v1',
      timeoutSeconds: 5,
      maxRequests: 2,
    });
    expect(config.rerank.deadlineMs).toBe(10_000);
  });

  it('prefers the rerank base URL and bounds, and derives the deadline from them for cross-encoder only', () => {
    const env = {
      POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL: 'openai-compatible:bge',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:11434/v1',
      POWERCONTEXT_SERVER_INFERENCE_RERANK_BASE_URL: 'http://127.0.0.1:8080/v1',
      POWERCONTEXT_SERVER_INFERENCE_RERANK_TIMEOUT_SECONDS: '1.5',
      POWERCONTEXT_SERVER_INFERENCE_RERANK_MAX_REQUESTS: '3',
    };
    const crossEncoder = loadRuntimeConfig({
      ...env,
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'cross-encoder',
    });
    expect(crossEncoder.rerankModel).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080/v1',
      timeoutSeconds: 1.5,
      maxRequests: 3,
    });
    expect(crossEncoder.rerank.deadlineMs).toBe(4_500);
    expect(loadRuntimeConfig(env).rerank.deadlineMs).toBe(60_000);
  });

  it('has no rerank model and no minimum score by default', () => {
    const config = loadRuntimeConfig({});
    expect(config.rerankModel).toBeUndefined();
    expect('minScore' in config.rerank).toBe(false);
  });

  it.each([
    ['POWERCONTEXT_SERVER_INFERENCE_RERANK_MODEL', 'openai:gpt-4o-mini', /must be openai-compatible:<model>/],
    [
      'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY',
      'cohere',
      /must be listwise, decision or cross-encoder/,
    ],
    ['POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MIN_SCORE', 'high', /must be a number/],
    ['POWERCONTEXT_SERVER_INFERENCE_RERANK_MAX_REQUESTS', '0', /must be at least 1/],
  ])('refuses %s=%s', (name, value, rule) => {
    expect(() =>
      loadRuntimeConfig({
        [name]: value,
        POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:8080/v1',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'configuration_error',
        setting: name,
        message: expect.stringMatching(rule),
      }),
    );
  });
});
