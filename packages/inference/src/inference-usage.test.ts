import { describe, expect, it } from 'vitest';
import { addUsage, NO_INFERENCE_USAGE } from './inference-usage.js';

describe('addUsage', () => {
  it('sums requests, calls and tokens known on both sides', () => {
    const sum = addUsage(
      { requests: 2, calls: 1, inputTokens: 10, outputTokens: 4, totalTokens: 14 },
      { requests: 1, calls: 1, inputTokens: 5, outputTokens: 1, totalTokens: 6 },
    );
    expect(sum).toEqual({ requests: 3, calls: 2, inputTokens: 15, outputTokens: 5, totalTokens: 20 });
  });

  it('keeps a token count undefined only when both sides are unknown', () => {
    const sum = addUsage({ requests: 1, calls: 1 }, { requests: 1, calls: 1 });
    expect(sum).toEqual({ requests: 2, calls: 2 });
    expect(sum.inputTokens).toBeUndefined();
    expect(sum.outputTokens).toBeUndefined();
    expect(sum.totalTokens).toBeUndefined();
    expect('inputTokens' in sum).toBe(false);
  });

  it('takes the known side when only one side reports tokens, never turning unknown into 0', () => {
    const sum = addUsage(
      { requests: 1, calls: 1, inputTokens: 7 },
      { requests: 1, calls: 1, outputTokens: 3 },
    );
    expect(sum.inputTokens).toBe(7);
    expect(sum.outputTokens).toBe(3);
    expect(sum.totalTokens).toBeUndefined();
  });

  it('treats NO_INFERENCE_USAGE as the neutral element', () => {
    const usage = { requests: 4, calls: 2, totalTokens: 9 };
    expect(addUsage(NO_INFERENCE_USAGE, usage)).toEqual(usage);
    expect(addUsage(usage, NO_INFERENCE_USAGE)).toEqual(usage);
  });

  it('does not mutate its arguments', () => {
    const a = { requests: 1, calls: 1, inputTokens: 1 };
    const b = { requests: 1, calls: 1, inputTokens: 2 };
    addUsage(a, b);
    expect(a).toEqual({ requests: 1, calls: 1, inputTokens: 1 });
    expect(b).toEqual({ requests: 1, calls: 1, inputTokens: 2 });
  });
});
