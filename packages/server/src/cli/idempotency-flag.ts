import { ArgsError } from '@powercontext/cli-support';
import { idempotencyKeyRule } from '@powercontext/memory-core';

const KEY_RULE = idempotencyKeyRule('--idempotency-key');

/**
 * The value of --idempotency-key, checked by the rule every transport applies (1-255 visible ASCII
 * characters) before any store is opened.
 */
export function checkIdempotencyKey(value: string): string {
  const parsed = KEY_RULE.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ArgsError(parsed.error.issues[0]?.message ?? '--idempotency-key is invalid');
}
