import type { Runtime } from '@powercontext/runtime';

/**
 * Gives every active entry of every scope a vector of the configured embedding profile, so that
 * `auto` search is hybrid again after a profile change. Returns the count per scope that had gaps.
 */
export async function reembedAll(
  runtime: Pick<Runtime, 'memory'>,
  report: (scopeId: string, filled: number) => void = () => {},
): Promise<Map<string, number>> {
  const filled = new Map<string, number>();
  for (const scopeId of await runtime.memory.scopes()) {
    const count = await runtime.memory.reembed(scopeId);
    if (count > 0) filled.set(scopeId, count);
    report(scopeId, count);
  }
  return filled;
}
