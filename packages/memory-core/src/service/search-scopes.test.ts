import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../domain/content-hash.js';
import type { ScopeAtRevision } from '../ports/scopes-reads.port.js';
import type { ChannelResult, SearchChannel } from '../ports/search-channel.port.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { createMinimalRrfPolicy, minimalRrfPolicy } from '../testing/minimal-rrf-policy.js';
import { createRecencyChannel } from '../testing-support/recency-channel.js';
import { MemoryService } from './memory-service.js';

/**
 * Two scopes may hold an entry with the same ids (a store written outside the service, an import of
 * the same records): a search over both must keep the two apart, from fusion to the citation.
 */
describe('search of several scopes with equal entry ids', () => {
  it('returns both hits, each citing its own scope, artifact and text', async () => {
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store, embedder, retrievalPolicy: minimalRrfPolicy });
    const entryId = randomUUID();
    const entryVersionId = randomUUID();
    const scopes = [`a-${randomUUID()}`, `b-${randomUUID()}`];
    for (const [index, scopeId] of scopes.entries()) {
      const text = `The shared decision number ${index} is recorded here.`;
      await store.write(scopeId, 0, (tx) =>
        tx.appendRevision(
          'remember',
          [
            {
              entryId,
              entryVersionId,
              version: 1,
              previousVersionId: null,
              kind: 'fact',
              text,
              contentHash: contentHash('fact', text),
              sources: [],
              position: null,
              metadata: {},
              tags: [],
              pinned: false,
              occurredAt: null,
              state: 'active',
            },
          ],
          minimalRrfPolicy.lexicalProjection,
        ),
      );
    }

    const result = await service.searchScopes(
      scopes,
      { query: 'shared decision', mode: 'fts' },
      { explain: true },
    );
    expect(result.hits).toHaveLength(2);
    expect(result.hits.map((hit) => hit.citation.scopeId).sort()).toEqual([...scopes].sort());
    expect(new Set(result.hits.map((hit) => hit.citation.artifactId)).size).toBe(2);
    for (const hit of result.hits) {
      expect(hit.citation).toMatchObject({ entryId, entryVersionId });
      expect(hit.text).toContain(`number ${scopes.indexOf(hit.citation.scopeId)}`);
      expect(hit.lexicalMatch?.ownTerms.length).toBeGreaterThan(0);
      const resolved = await service.resolveCitation(hit.citation.scopeId, hit.citation);
      expect(resolved.status === 'valid' && resolved.entry.text).toBe(hit.text);
      const other = scopes.find((scope) => scope !== hit.citation.scopeId)!;
      await expect(service.resolveCitation(other, hit.citation)).rejects.toMatchObject({
        code: 'invalid_citation',
      });
    }
  });
});

/**
 * A channel that reads several scopes at once (`searchScopes`) is called once per search of several
 * scopes, with each scope at its own head, and each scope gets its own list back: the search answers
 * exactly as with the same channel called scope by scope.
 */
describe('a channel that reads several scopes at once', () => {
  async function twoScopes() {
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const plain = new MemoryService({ store, embedder, retrievalPolicy: createMinimalRrfPolicy() });
    const scopes = [`a-${randomUUID()}`, `b-${randomUUID()}`, `never-${randomUUID()}`];
    for (const text of ['the old plan', 'the new plan']) {
      await plain.remember(scopes[0]!, { entries: [{ text }] });
    }
    await plain.remember(scopes[1]!, { entries: [{ text: 'the only plan' }] });
    const serviceWith = (channel: SearchChannel) =>
      new MemoryService({
        store,
        embedder,
        retrievalPolicy: createMinimalRrfPolicy(['fts', 'recent']),
        searchChannels: [channel],
      });
    return { store, scopes, serviceWith };
  }

  it('is called once, with each written scope at its own head, and answers as scope by scope', async () => {
    const { store, scopes, serviceWith } = await twoScopes();
    const recency = createRecencyChannel(store, 4);
    const calls: { search: number; scopes: ScopeAtRevision[][] } = { search: 0, scopes: [] };
    const batched: SearchChannel = {
      ...recency,
      search: (query) => {
        calls.search += 1;
        return recency.search(query);
      },
      searchScopes: async (query, asked) => {
        calls.scopes.push([...asked]);
        return Promise.all(asked.map((scope) => recency.search({ ...query, ...scope })));
      },
    };
    const request = { query: 'plan', mode: 'fts' as const, limit: 5 };
    const result = await serviceWith(batched).searchScopes(scopes, request);
    expect(calls).toEqual({
      search: 0,
      scopes: [
        [
          { scopeId: scopes[0], revision: 2 },
          { scopeId: scopes[1], revision: 1 },
        ],
      ],
    });
    expect(result).toEqual(await serviceWith(recency).searchScopes(scopes, request));
    expect(result.hits.filter((hit) => hit.matchedBy.includes('recent'))).toHaveLength(3);
  });

  it('fails the search when it answers another number of lists than scopes', async () => {
    const { store, scopes, serviceWith } = await twoScopes();
    const short: SearchChannel = {
      ...createRecencyChannel(store, 4),
      searchScopes: async (): Promise<ChannelResult[]> => [{ candidates: [] }],
    };
    await expect(serviceWith(short).searchScopes(scopes, { query: 'plan', mode: 'fts' })).rejects.toThrow(
      'the recent channel answered 1 results for 2 scopes',
    );
  });
});
