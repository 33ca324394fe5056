/**
 * What an inference operation cost. `requests` counts HTTP requests actually sent (retries
 * included); `calls` counts logical operations (one `generate` is one call however many requests
 * it took). Token counts are `undefined` when the provider did not report them: unknown is not 0.
 */
export interface InferenceUsage {
  requests: number;
  calls: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** Usage of nothing: no requests, no calls, no tokens known. */
export const NO_INFERENCE_USAGE: Readonly<InferenceUsage> = Object.freeze({ requests: 0, calls: 0 });

/**
 * Sums two usages. A token count stays `undefined` only when both sides are unknown; when one side
 * knows it, the unknown side adds nothing (the sum is then a lower bound).
 */
export function addUsage(a: InferenceUsage, b: InferenceUsage): InferenceUsage {
  const sum: InferenceUsage = { requests: a.requests + b.requests, calls: a.calls + b.calls };
  const inputTokens = addKnown(a.inputTokens, b.inputTokens);
  const outputTokens = addKnown(a.outputTokens, b.outputTokens);
  const totalTokens = addKnown(a.totalTokens, b.totalTokens);
  if (inputTokens !== undefined) sum.inputTokens = inputTokens;
  if (outputTokens !== undefined) sum.outputTokens = outputTokens;
  if (totalTokens !== undefined) sum.totalTokens = totalTokens;
  return sum;
}

function addKnown(left: number | undefined, right: number | undefined): number | undefined {
  if (left === undefined) return right;
  if (right === undefined) return left;
  return left + right;
}
