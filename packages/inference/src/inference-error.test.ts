import { describe, expect, it } from 'vitest';
import { InferenceError } from './inference-error.js';

describe('InferenceError', () => {
  it('carries code, message, cause and usage', () => {
    const cause = new Error('socket hang up');
    const error = new InferenceError('inference_unavailable', 'provider down', {
      cause,
      usage: { requests: 2, calls: 1 },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InferenceError');
    expect(error.code).toBe('inference_unavailable');
    expect(error.message).toBe('provider down');
    expect(error.cause).toBe(cause);
    expect(error.usage).toEqual({ requests: 2, calls: 1 });
  });

  it('is retryable by default for timeouts and outages, not for invalid output', () => {
    expect(new InferenceError('inference_timeout', 't').retryable).toBe(true);
    expect(new InferenceError('inference_unavailable', 'u').retryable).toBe(true);
    expect(new InferenceError('inference_invalid_output', 'i').retryable).toBe(false);
    expect(new InferenceError('inference_unavailable', 'u', { retryable: false }).retryable).toBe(false);
  });

  it('leaves cause and usage unset when not given', () => {
    const error = new InferenceError('inference_timeout', 'slow');
    expect('cause' in error).toBe(false);
    expect(error.usage).toBeUndefined();
  });

  it('isInstance recognises its own instances and copies from another package instance', () => {
    expect(InferenceError.isInstance(new InferenceError('inference_timeout', 'slow'))).toBe(true);
    // What a second copy of the package would produce: a different class with the same global marker.
    const foreign = Object.assign(new Error('elsewhere'), {
      [Symbol.for('powercontext.inference-error')]: true,
    });
    expect(InferenceError.isInstance(foreign)).toBe(true);
  });

  it('isInstance rejects everything else', () => {
    expect(InferenceError.isInstance(new Error('plain'))).toBe(false);
    expect(InferenceError.isInstance({ code: 'inference_timeout' })).toBe(false);
    expect(InferenceError.isInstance(null)).toBe(false);
    expect(InferenceError.isInstance(undefined)).toBe(false);
    expect(InferenceError.isInstance('inference_timeout')).toBe(false);
  });
});
