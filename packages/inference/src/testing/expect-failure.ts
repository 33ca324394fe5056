import { InferenceError, type InferenceErrorCode } from '../inference-error.js';
import { conform, settleWithin, shown } from './conformance.js';

/** Awaits `call` (at most `patienceMs`) and returns its rejection; fails the check when it resolved or hung. */
export async function rejectionOf(
  call: () => Promise<unknown>,
  patienceMs: number,
  what: string,
): Promise<unknown> {
  const settled = await settleWithin(Promise.resolve().then(call), patienceMs);
  conform(settled.status !== 'timedOut', `${what}: no answer within ${patienceMs} ms`);
  conform(
    settled.status === 'rejected',
    `${what}: expected a failure, but the call returned ${shown(settled.status === 'fulfilled' ? settled.value : undefined)}`,
  );
  return settled.reason;
}

/** Checks that `error` is an InferenceError of `code` whose usage counts one call and the requests sent. */
export function conformInferenceError(
  error: unknown,
  code: InferenceErrorCode,
  what: string,
): InferenceError {
  conform(
    InferenceError.isInstance(error) && error.code === code,
    `${what}: expected an InferenceError with code ${code}, got ${error instanceof Error ? `${error.name} ${shown((error as { code?: unknown }).code)}: ${error.message}` : shown(error)}`,
  );
  const usage = error.usage;
  conform(
    usage !== undefined && usage.calls === 1 && Number.isInteger(usage.requests) && usage.requests >= 0,
    `${what}: the error must carry the usage spent (one call, the requests sent), got ${shown(usage)}`,
  );
  return error;
}

/** Checks that an aborted call rejected with the caller's own reason, unwrapped. */
export async function conformAbort(
  start: (signal: AbortSignal) => Promise<unknown>,
  patienceMs: number,
): Promise<void> {
  const reason = new Error('conformance: the caller gave up');
  const controller = new AbortController();
  const pending = Promise.resolve().then(() => start(controller.signal));
  setTimeout(() => controller.abort(reason), 20);
  const error = await rejectionOf(() => pending, patienceMs, 'an aborted call');
  conform(
    error === reason,
    `an aborted call must reject with the caller's own abort reason, unwrapped; got ${String(error)}`,
  );

  const already = new AbortController();
  already.abort(reason);
  const early = await rejectionOf(
    () => start(already.signal),
    patienceMs,
    'a call with an already aborted signal',
  );
  conform(
    early === reason,
    `a call with an already aborted signal must reject with its reason; got ${String(early)}`,
  );
}

/** Token counts are undefined when unknown, else non-negative integers. */
export function conformTokens(usage: Record<string, unknown>, what: string): void {
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens']) {
    const tokens = usage[key];
    conform(
      tokens === undefined || (Number.isInteger(tokens) && (tokens as number) >= 0),
      `${what}: usage.${key} must be undefined when unknown or a non-negative integer, got ${shown(tokens)}`,
    );
  }
}
