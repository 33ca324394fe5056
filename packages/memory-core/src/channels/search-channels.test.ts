import { describe, expect, it } from 'vitest';
import type { ChannelQuery, SearchChannel } from '../ports/search-channel.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { createMinimalRrfPolicy } from '../testing/minimal-rrf-policy.js';

const TEXTS = ['the deploy freeze starts friday', 'lunch is at noon', 'the pager rotation changes monday'];

/**
 * A channel of an application's own: it names entries by a rule of its own (here: a fixed list the
 * test decides) and records what the search asked of it.
 */
function pinnedChannel(pinned: () => string[], needs: SearchChannel['needs'] = 'text') {
  const queries: ChannelQuery[] = [];
  const channel: SearchChannel = {
    name: 'pinned',
    id: 'test.pinned.v1',
    needs,
    async search(query) {
      queries.push(query);
      return {
        candidates: pinned().map((entryVersionId, index) => ({
          entryId: entryVersionId.split('/')[0]!,
          entryVersionId: entryVersionId.split('/')[1]!,
          rank: index + 1,
          score: 1 / (index + 1),
        })),
      };
    },
  };
  return { channel, queries };
}

async function setUp(channels = ['fts', 'vector', 'pinned']) {
  const store = new InMemoryMemoryStore();
  const embedder = createFakeEmbedder();
  await store.prepareEmbeddingProfile(embedder.profile);
  const writer = new MemoryService({ store, embedder, retrievalPolicy: createMinimalRrfPolicy() });
  const { entries, memory } = await writer.remember('scope', { entries: TEXTS.map((text) => ({ text })) });
  const ids = entries.map((entry) => `${entry.entryId}/${entry.entryVersionId}`);
  return { store, embedder, ids, revision: memory.revision, policy: createMinimalRrfPolicy(channels) };
}

describe('search channels (RFC 0013)', () => {
  it('runs a channel an application adds, at the search’s revision, and fuses what it finds', async () => {
    const { store, embedder, ids, revision, policy } = await setUp();
    const pinned = pinnedChannel(() => [ids[1]!]);
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: policy,
      searchChannels: [pinned.channel],
    });
    expect(service.searchChannels.map((channel) => channel.name)).toEqual(['fts', 'vector', 'pinned']);

    const result = await service.search('scope', { query: 'deploy freeze', mode: 'hybrid', limit: 3 });
    const lunch = result.hits.find((hit) => hit.text === TEXTS[1]);
    expect(lunch).toMatchObject({ matchedBy: ['pinned'], channelRanks: { pinned: 1 } });
    expect(result.hits[0]).toMatchObject({ text: TEXTS[0], matchedBy: ['fts', 'vector'] });
    expect(pinned.queries).toEqual([
      expect.objectContaining({ scopeId: 'scope', revision, text: 'deploy freeze', limit: 32 }),
    ]);
    expect(pinned.queries[0]!.embedding?.profile.id).toBe(embedder.profile.id);
  });

  it('runs text channels in fts mode and embedding channels in vector mode, all in hybrid', async () => {
    const { store, embedder, ids, policy } = await setUp();
    for (const [needs, mode, runs] of [
      ['text', 'fts', true],
      ['text', 'vector', false],
      ['embedding', 'fts', false],
      ['embedding', 'vector', true],
      ['embedding', 'hybrid', true],
    ] as const) {
      const pinned = pinnedChannel(() => [ids[2]!], needs);
      const service = new MemoryService({
        store,
        embedder,
        retrievalPolicy: policy,
        searchChannels: [pinned.channel],
      });
      const result = await service.search('scope', { query: 'lunch', mode });
      expect(pinned.queries.length > 0, `${needs} channel in ${mode} mode`).toBe(runs);
      expect(result.hits.some((hit) => hit.matchedBy.includes('pinned'))).toBe(runs);
    }
  });

  it('refuses a policy channel nothing implements, a channel the policy does not fuse, and twins', async () => {
    const { store, embedder, ids } = await setUp();
    const pinned = pinnedChannel(() => [ids[0]!]).channel;
    expect(
      () =>
        new MemoryService({ store, embedder, retrievalPolicy: createMinimalRrfPolicy(['fts', 'pinned']) }),
    ).toThrow('fuses the channel "pinned", which no search channel implements');
    expect(
      () =>
        new MemoryService({
          store,
          embedder,
          retrievalPolicy: createMinimalRrfPolicy(),
          searchChannels: [pinned],
        }),
    ).toThrow('the search channel "pinned" is not fused by the retrieval policy');
    expect(
      () =>
        new MemoryService({
          store,
          embedder,
          retrievalPolicy: createMinimalRrfPolicy(['fts', 'vector', 'pinned']),
          searchChannels: [pinned, pinned],
        }),
    ).toThrow('two search channels are named "pinned"');
  });

  it('lets an application channel replace a built-in one of the same name', async () => {
    const { store, embedder, ids } = await setUp();
    const replacement = { ...pinnedChannel(() => [ids[1]!]).channel, name: 'fts' };
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: createMinimalRrfPolicy(['fts']),
      searchChannels: [replacement],
    });
    const result = await service.search('scope', { query: 'deploy', mode: 'fts' });
    expect(result.hits.map((hit) => hit.text)).toEqual([TEXTS[1]]);
  });
});
