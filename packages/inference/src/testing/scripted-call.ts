import { InferenceError } from '../inference-error.js';
import type { InferenceUsage } from '../inference-usage.js';

/**
 * Runs the work of a fake model call as a real adapter bounds one: the caller's abort rethrows its
 * reason as is; past `timeoutMs` the call fails with `inference_timeout`. Errors of `work` that are
 * not InferenceErrors become `inference_unavailable`, carrying `usage`.
 */
export async function boundedCall<T>(
  work: (signal: AbortSignal) => Promise<T> | T,
  options: { signal?: AbortSignal | undefined; timeoutMs: number; usage: InferenceUsage },
): Promise<T> {
  const callerSignal = options.signal;
  callerSignal?.throwIfAborted();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
  try {
    const pending = Promise.resolve().then(() => work(signal));
    return await new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (timeout.aborted) {
      throw new InferenceError('inference_timeout', `No answer within ${options.timeoutMs} ms`, {
        cause: error,
        usage: { ...options.usage },
      });
    }
    if (InferenceError.isInstance(error)) throw error;
    throw new InferenceError('inference_unavailable', `The scripted model failed: ${String(error)}`, {
      cause: error,
      usage: { ...options.usage },
    });
  }
}

/** A model call that never answers: it ends only when `signal` aborts, rejecting with its reason. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
