import { afterEach, describe, it } from 'vitest';

/**
 * One rule of a port's conformance suite, as a plain async function. `rule` names where the rule is
 * written (an RFC section or a seed), so a failure points a contributor at the text to read.
 */
export interface ConformanceCheck {
  title: string;
  rule: string;
  run(): Promise<void>;
}

/** What a suite needs besides its checks: a hook that releases what a check opened (servers, pools). */
export interface ConformanceSuite {
  checks: ConformanceCheck[];
  cleanup?: () => Promise<void> | void;
}

export interface ConformanceOutcome {
  title: string;
  rule: string;
  passed: boolean;
  /** The violation's message when the check failed. */
  message?: string;
}

/** Raised by a check whose rule the adapter broke; the message says what was expected and what came. */
export class ConformanceViolation extends Error {
  override readonly name = 'ConformanceViolation';
}

/** Fails the running check with `message` unless `condition` holds. */
export function conform(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceViolation(message);
}

/** JSON for messages: short, and readable for arrays of numbers. */
export function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Settles `promise` within `ms`: resolves to its value or rejection, or to `timedOut` when it is
 * still pending, so a check can say "did not answer" instead of hitting the runner's timeout.
 */
export async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<
  { status: 'fulfilled'; value: T } | { status: 'rejected'; reason: unknown } | { status: 'timedOut' }
> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ status: 'timedOut' }>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'timedOut' }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ status: 'fulfilled' as const, value }),
        (reason: unknown) => ({ status: 'rejected' as const, reason }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Registers one vitest test per check, titled with the rule it checks. */
export function registerConformanceSuite(title: string, suite: ConformanceSuite): void {
  describe(title, () => {
    if (suite.cleanup) afterEach(suite.cleanup);
    for (const check of suite.checks) it(`${check.title} [${check.rule}]`, () => check.run());
  });
}

/**
 * Runs every check in order as plain functions, outside any test runner, and reports each outcome.
 * Self-tests use it to prove that a deliberately broken adapter fails the suite.
 */
export async function runConformanceSuite(suite: ConformanceSuite): Promise<ConformanceOutcome[]> {
  const outcomes: ConformanceOutcome[] = [];
  for (const check of suite.checks) {
    try {
      await check.run();
      outcomes.push({ title: check.title, rule: check.rule, passed: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcomes.push({ title: check.title, rule: check.rule, passed: false, message });
    } finally {
      await suite.cleanup?.();
    }
  }
  return outcomes;
}
