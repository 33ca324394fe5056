import { ENTITY_EXTRACTOR_ID, extractEntities } from '../domain/entities.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { SearchChannel } from '../ports/search-channel.port.js';

/** Most entities of a query the entity and graph channels look up. */
export const ENTITY_QUERY_MAX = 32;

export interface EntityChannelOptions {
  /**
   * A query entity counts only when at most this share of the scope's active entries hold it (or at
   * most 2): a name in most entries (a speaker, the team's own product) says nothing about which entry
   * is meant, and its holders would tie and crowd the fused list in an arbitrary order. Default 0.1.
   */
  maxEntityShare?: number;
}

export const ENTITY_CHANNEL_DEFAULTS: Required<EntityChannelOptions> = { maxEntityShare: 0.1 };

export interface GraphChannelOptions extends EntityChannelOptions {
  /** How many of the entity channel's best entries the hop starts from. Default 10. */
  seeds?: number;
  /**
   * An entity links only if at most this share of the scope's active entries hold it (and at least
   * 2): rare names, tickets and services link, a name in every entry does not. Default 0.05.
   */
  rareShare?: number;
}

export const GRAPH_CHANNEL_DEFAULTS: Required<GraphChannelOptions> = {
  ...ENTITY_CHANNEL_DEFAULTS,
  seeds: 10,
  rareShare: 0.05,
};

function checkShare(name: string, share: number) {
  if (!(share > 0 && share <= 1)) throw new RangeError(`${name} must be in (0, 1]`);
}

/**
 * The entity channel (`entity`, RFC 0013; seed 003's entity-match stream): the query's entities, found
 * by the extractor the store ran on every entry at write time, matched against the scope's entities
 * at the revision and ranked by the sum of their IDF; an entity most entries hold does not count. A
 * query that names no entity finds nothing.
 */
export function createEntityChannel(store: MemoryStore, options: EntityChannelOptions = {}): SearchChannel {
  const { maxEntityShare } = { ...ENTITY_CHANNEL_DEFAULTS, ...options };
  checkShare('maxEntityShare', maxEntityShare);
  return {
    name: 'entity',
    id: `powercontext.channel.entity.v1(${ENTITY_EXTRACTOR_ID};share=${maxEntityShare})`,
    needs: 'text',
    filters: true,
    async search({ scopeId, revision, text, limit, filter }) {
      const entities = extractEntities(text, ENTITY_QUERY_MAX);
      if (entities.length === 0) return { candidates: [], queryTermCount: 0 };
      const { candidates } = await store.entitySearch({
        scopeId,
        revision,
        entities,
        maxDocumentShare: maxEntityShare,
        limit,
        ...(filter ? { filter } : {}),
      });
      return { candidates, queryTermCount: entities.length };
    },
  };
}

/**
 * The graph channel (`graph`, RFC 0013; seed 003's graph-expansion stream): one hop from the entity
 * channel's best entries (the seeds, found by the same read) to the other entries that share a rare
 * entity with them, other than the query's own entities, ranked by link strength (the sum of the shared
 * entities' IDF). The seeds themselves are left to the entity channel.
 */
export function createGraphChannel(store: MemoryStore, options: GraphChannelOptions = {}): SearchChannel {
  const { seeds, rareShare, maxEntityShare } = { ...GRAPH_CHANNEL_DEFAULTS, ...options };
  if (!Number.isInteger(seeds) || seeds < 1) throw new RangeError('seeds must be an integer of at least 1');
  checkShare('rareShare', rareShare);
  checkShare('maxEntityShare', maxEntityShare);
  return {
    name: 'graph',
    id: `powercontext.channel.graph.v1(${ENTITY_EXTRACTOR_ID};share=${maxEntityShare};seeds=${seeds};rare=${rareShare})`,
    needs: 'text',
    filters: true,
    async search({ scopeId, revision, text, limit, filter }) {
      const entities = extractEntities(text, ENTITY_QUERY_MAX);
      if (entities.length === 0) return { candidates: [], queryTermCount: 0 };
      const found = await store.entitySearch({
        scopeId,
        revision,
        entities,
        maxDocumentShare: maxEntityShare,
        limit: seeds,
      });
      if (found.candidates.length === 0) return { candidates: [], queryTermCount: entities.length };
      const candidates = await store.entityNeighbours({
        scopeId,
        revision,
        seedVersionIds: found.candidates.map((seed) => seed.entryVersionId),
        excludedEntities: entities,
        maxDocumentFrequency: Math.max(2, Math.floor(rareShare * found.activeEntries)),
        limit,
        ...(filter ? { filter } : {}),
      });
      return { candidates, queryTermCount: entities.length };
    },
  };
}
