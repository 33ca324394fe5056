import { describe, expect, it } from 'vitest';
import { UsageTally, usageOfError } from './usage.js';

describe('UsageTally', () => {
  it('sums requests and known token counts, and takes calls from the caller', () => {
    const tally = new UsageTally();
    tally.add({ requests: 2, calls: 1, inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    tally.add({ requests: 1, calls: 1, inputTokens: 5 });
    expect(tally.toUsage(7)).toEqual({
      requests: 3,
      calls: 7,
      inputTokens: 15,
      outputTokens: 1,
      totalTokens: 11,
    });
  });

  it('leaves token counts out when nothing reported them, and ignores malformed values', () => {
    const tally = new UsageTally();
    tally.add({ requests: 1, calls: 1 });
    tally.add(undefined);
    tally.add({ requests: -1, inputTokens: Number.NaN, outputTokens: -3 });
    tally.add({ requests: 1.5 });
    const usage = tally.toUsage(4);
    expect(usage).toEqual({ requests: 1, calls: 4 });
    expect('inputTokens' in usage || 'outputTokens' in usage || 'totalTokens' in usage).toBe(false);
  });

  it('reads the usage an error carries', () => {
    expect(usageOfError(Object.assign(new Error('x'), { usage: { requests: 2, calls: 1 } }))).toEqual({
      requests: 2,
      calls: 1,
    });
    expect(usageOfError(new Error('x'))).toBeUndefined();
    expect(usageOfError('boom')).toBeUndefined();
  });
});
