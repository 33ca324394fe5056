import type { ChannelName } from '../domain/search.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import type { SearchChannel } from '../ports/search-channel.port.js';
import { createEntityChannel, createGraphChannel } from './entity-channels.js';
import { createLexicalChannel, createVectorChannel } from './store-channels.js';

/**
 * The channels every store offers over its MemoryStore methods: `fts` and `vector` (fused by default),
 * `entity` and `graph` (optional, RFC 0013).
 */
export function storeChannels(store: MemoryStore, policy: RetrievalPolicy): SearchChannel[] {
  return [
    createLexicalChannel(store, policy.bm25),
    createVectorChannel(store),
    createEntityChannel(store),
    createGraphChannel(store),
  ];
}

/**
 * The channels a search runs, in the policy's fusion order: for each name the policy fuses, the
 * application's channel of that name or else the store's built-in one. Refuses, when the service is
 * built rather than at the first search, a name nothing implements, an application channel the policy
 * does not fuse (it would never run), and two application channels of one name.
 */
export function resolveSearchChannels(
  store: MemoryStore,
  policy: RetrievalPolicy,
  added: readonly SearchChannel[] = [],
): ReadonlyMap<ChannelName, SearchChannel> {
  const own = new Map<ChannelName, SearchChannel>();
  for (const channel of added) {
    if (own.has(channel.name)) throw new Error(`two search channels are named "${channel.name}"`);
    own.set(channel.name, channel);
  }
  const builtIn = new Map(
    policy.channels.length === 0 ? [] : storeChannels(store, policy).map((c) => [c.name, c]),
  );
  const resolved = new Map<ChannelName, SearchChannel>();
  for (const name of policy.channels) {
    const channel = own.get(name) ?? builtIn.get(name);
    if (!channel) {
      throw new Error(
        `the retrieval policy ${policy.id} fuses the channel "${name}", which no search channel implements`,
      );
    }
    resolved.set(name, channel);
  }
  for (const name of own.keys()) {
    if (!resolved.has(name)) {
      throw new Error(
        `the search channel "${name}" is not fused by the retrieval policy ${policy.id}: name it in the policy's channels`,
      );
    }
  }
  return resolved;
}
