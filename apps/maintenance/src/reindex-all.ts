import type { Runtime } from '@powercontext/runtime';

/**
 * Rebuilds the lexical index of every scope under the configured projection (neighbour context
 * weights), after the weights changed. Returns the count per scope that had stale projections.
 */
export async function reindexAll(
  runtime: Pick<Runtime, 'memory'>,
  report: (scopeId: string, rebuilt: number) => void = () => {},
): Promise<Map<string, number>> {
  const rebuilt = new Map<string, number>();
  for (const scopeId of await runtime.memory.scopes()) {
    const count = await runtime.memory.reindex(scopeId);
    if (count > 0) rebuilt.set(scopeId, count);
    report(scopeId, count);
  }
  return rebuilt;
}
