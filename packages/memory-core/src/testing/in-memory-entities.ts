import { type EntryFilter, matchesFilter } from '../domain/entry-filter.js';
import type { EntryVersion } from '../domain/memory-entry.js';
import type { ChannelCandidate } from '../domain/search.js';
import type {
  EntityNeighbourQuery,
  EntitySearchQuery,
  EntitySearchResult,
} from '../ports/memory-store.port.js';

/** An active version live at the searched revision, with the entities the store extracted from it. */
export interface EntityHolder {
  version: EntryVersion;
  entities: readonly string[];
}

/** The entity channel's read over the live active versions (see `MemoryStore.entitySearch`). */
export function searchEntities(live: readonly EntityHolder[], query: EntitySearchQuery): EntitySearchResult {
  const wanted = new Set(query.entities);
  const frequency = documentFrequencies(live, wanted);
  const bound = Math.max(2, Math.floor((query.maxDocumentShare ?? 1) * live.length));
  for (const [entity, count] of frequency) if (count > bound) wanted.delete(entity);
  return {
    activeEntries: live.length,
    candidates: rank(live, wanted, frequency, query.limit, live.length, query.filter),
  };
}

/** The graph channel's read over the live active versions (see `MemoryStore.entityNeighbours`). */
export function entityNeighbours(
  live: readonly EntityHolder[],
  query: EntityNeighbourQuery,
): ChannelCandidate[] {
  const seeds = new Set(query.seedVersionIds);
  const excluded = new Set(query.excludedEntities);
  const links = new Set<string>();
  for (const holder of live) {
    if (!seeds.has(holder.version.entryVersionId)) continue;
    for (const entity of holder.entities) if (!excluded.has(entity)) links.add(entity);
  }
  const frequency = documentFrequencies(live, links);
  for (const [entity, count] of frequency) {
    if (count < 2 || count > query.maxDocumentFrequency) links.delete(entity);
  }
  const others = live.filter((holder) => !seeds.has(holder.version.entryVersionId));
  return rank(others, links, frequency, query.limit, live.length, query.filter);
}

function documentFrequencies(live: readonly EntityHolder[], entities: ReadonlySet<string>) {
  const frequency = new Map<string, number>();
  for (const holder of live) {
    for (const entity of holder.entities) {
      if (entities.has(entity)) frequency.set(entity, (frequency.get(entity) ?? 0) + 1);
    }
  }
  return frequency;
}

/**
 * Versions holding any of `entities`, by the sum of their IDF (added in code-unit order of the
 * entity, as the SQL stores add them), then entry id and entry version id.
 */
function rank(
  holders: readonly EntityHolder[],
  entities: ReadonlySet<string>,
  frequency: ReadonlyMap<string, number>,
  limit: number,
  activeEntries: number,
  filter: EntryFilter | undefined,
): ChannelCandidate[] {
  const scored: { version: EntryVersion; score: number; matched: number }[] = [];
  for (const holder of holders) {
    if (!matchesFilter(holder.version, filter)) continue;
    const matched = holder.entities.filter((entity) => entities.has(entity)).sort(compare);
    if (matched.length === 0) continue;
    let score = 0;
    for (const entity of matched) {
      const df = frequency.get(entity) ?? 0;
      score += Math.log(1 + (activeEntries - df + 0.5) / (df + 0.5));
    }
    scored.push({ version: holder.version, score, matched: matched.length });
  }
  return scored
    .sort(
      (a, b) =>
        b.score - a.score ||
        compare(a.version.entryId, b.version.entryId) ||
        compare(a.version.entryVersionId, b.version.entryVersionId),
    )
    .slice(0, limit)
    .map((item, index) => ({
      entryId: item.version.entryId,
      entryVersionId: item.version.entryVersionId,
      rank: index + 1,
      score: item.score,
      matchedTerms: item.matched,
    }));
}

function compare(a: string, b: string) {
  return a < b ? -1 : a > b ? 1 : 0;
}
