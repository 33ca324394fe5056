import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { createMinimalRrfPolicy } from '../testing/minimal-rrf-policy.js';
import { createRecencyChannel } from '../testing-support/recency-channel.js';

const EXAMPLE = new URL('../testing-support/recency-channel.ts', import.meta.url);
const CONTRIBUTING = new URL('../../../../CONTRIBUTING.md', import.meta.url);

describe('CONTRIBUTING.md, "Adding a channel": the worked example', () => {
  it('is on the page exactly as the file the build checks', () => {
    const source = readFileSync(EXAMPLE, 'utf8').replace(/^\/\/.*\n/gmu, '');
    const page = readFileSync(CONTRIBUTING, 'utf8');
    expect(page).toContain('## Adding a channel');
    expect(page).toContain(
      `\`\`\`ts\n// packages/my-app/src/recency-channel.ts\n${source.replace("'../index.js'", "'@powercontext/memory-core'")}\`\`\``,
    );
  });

  it('joins a search through the policy and the service, without touching the search path', async () => {
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const plain = new MemoryService({ store, embedder, retrievalPolicy: createMinimalRrfPolicy() });
    const ids: string[] = [];
    for (const text of ['the old plan', 'the new plan', 'the newest plan', 'the dropped plan']) {
      ids.push((await plain.remember('scope', { entries: [{ text }] })).entries[0]!.entryId);
    }
    await plain.forget('scope', { entryId: ids[3]! });
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: createMinimalRrfPolicy(['fts', 'vector', 'recent']),
      searchChannels: [createRecencyChannel(store, 4)],
    });
    const result = await service.search('scope', { query: 'plan', mode: 'hybrid', limit: 10 });
    const recent = result.hits
      .filter((hit) => hit.matchedBy.includes('recent'))
      .sort((a, b) => a.channelRanks.recent! - b.channelRanks.recent!)
      .map((hit) => hit.text);
    // Revisions 2-5 of 5, newest first: the newest plan (3), the new plan (2); the dropped plan (4) was
    // forgotten at 5, and the old plan (1) is outside the window.
    expect(recent).toEqual(['the newest plan', 'the new plan']);
  });
});
