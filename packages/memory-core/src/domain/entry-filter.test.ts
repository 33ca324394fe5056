import { describe, expect, it } from 'vitest';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { createMinimalRrfPolicy } from '../testing/minimal-rrf-policy.js';
import { createRecencyChannel } from '../testing-support/recency-channel.js';
import { entryFilterSchema, jsonContains } from './entry-filter.js';

describe('jsonContains (the jsonb @> rule of a metadata filter)', () => {
  it('holds for equal scalars, objects within objects and elements within arrays, at any depth', () => {
    expect(jsonContains({ a: 1, b: { c: [1, 2, { d: 'x' }] } }, { b: { c: [{ d: 'x' }, 2] } })).toBe(true);
    expect(jsonContains({ a: [1, [2, 3]] }, { a: [[3]] })).toBe(true);
    expect(jsonContains({ a: null }, { a: null })).toBe(true);
  });
  it('fails for a missing key, another scalar, a scalar against an array and an array against an object', () => {
    expect(jsonContains({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonContains({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonContains({ a: [1, 2] }, { a: 1 })).toBe(false);
    expect(jsonContains({ a: { b: 1 } }, { a: [1] })).toBe(false);
  });
});

describe('entryFilterSchema', () => {
  it('folds tags, normalises times to UTC and refuses unknown keys', () => {
    expect(
      entryFilterSchema.parse({ tagsAny: ['Billing'], occurredAfter: '2026-06-03T10:00:00+02:00' }),
    ).toEqual({ tagsAny: ['billing'], occurredAfter: '2026-06-03T08:00:00.000Z' });
    expect(entryFilterSchema.safeParse({ colour: 'red' }).success).toBe(false);
    expect(entryFilterSchema.safeParse({ occurredAfter: '2026-06-03' }).success).toBe(false);
  });
});

describe('a filtered search and a channel that cannot filter', () => {
  it('refuses with a validation error on filter naming the channel, and runs unfiltered as before', async () => {
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: createMinimalRrfPolicy(['fts', 'vector', 'recent']),
      searchChannels: [createRecencyChannel(store, 4)],
    });
    await service.remember('s', { entries: [{ text: 'the plan', tags: ['x'] }] });
    await expect(
      service.search('s', { query: 'plan', mode: 'fts', filter: { tagsAny: ['x'] } }),
    ).rejects.toMatchObject({
      issues: [{ field: 'filter', rule: 'the recent channel cannot apply a filter inside its search' }],
    });
    expect((await service.search('s', { query: 'plan', mode: 'fts' })).hits).toHaveLength(1);
    // A search of several scopes refuses the same way, before any scope is searched.
    await service.remember('t', { entries: [{ text: 'the other plan', tags: ['x'] }] });
    await expect(
      service.searchScopes(['s', 't'], { query: 'plan', mode: 'fts', filter: { tagsAny: ['x'] } }),
    ).rejects.toMatchObject({
      issues: [{ field: 'filter', rule: 'the recent channel cannot apply a filter inside its search' }],
    });
    expect((await service.searchScopes(['s', 't'], { query: 'plan', mode: 'fts' })).hits).toHaveLength(2);
  });
});
