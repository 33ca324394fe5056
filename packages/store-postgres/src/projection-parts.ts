import type { ProjectionNeighbour } from '@powercontext/memory-core';

/**
 * The parts a lexical projection is built from, as three parallel columns for `unnest`: for each
 * projection (named by `target`), its own version at weight 1, then each neighbour at its weight.
 * Inserting projections and rebuilding them in place (purge) build them the same way.
 */
export function projectionParts(
  projections: readonly { target: string; entryVersionId: string; context: readonly ProjectionNeighbour[] }[],
): { targets: string[]; sources: string[]; weights: number[] } {
  const parts = { targets: [] as string[], sources: [] as string[], weights: [] as number[] };
  for (const p of projections) {
    for (const part of [{ entryVersionId: p.entryVersionId, weight: 1 }, ...p.context]) {
      parts.targets.push(p.target);
      parts.sources.push(part.entryVersionId);
      parts.weights.push(part.weight);
    }
  }
  return parts;
}
