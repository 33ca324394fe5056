import { describe, expect, it } from 'vitest';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { noSearchPolicy } from '../testing/no-search-policy.js';
import { MemoryService } from './memory-service.js';

/** A metadata object nesting `levels` levels below itself: { a: { a: ... 1 } }. */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value as Record<string, unknown>;
}

function setup() {
  const store = new InMemoryMemoryStore();
  const embedder = createFakeEmbedder();
  return {
    store,
    embedder,
    service: new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy }),
  };
}

describe('MemoryService input rules', () => {
  it.each([
    [
      { entries: [{ text: 'ok', kind: 'Bad Kind' }] },
      'entries.0.kind',
      'kind must be 1-64 lowercase letters, digits, "_", "." or "-"',
    ],
    [{ entries: [{ text: 'ok', extra: 1 }] }, 'entries.0', 'Unrecognized key: "extra"'],
    [{ entries: [{ text: 42 }] }, 'entries.0.text', 'text must be a string'],
    [{ entries: [{ text: ' \n ' }] }, 'entries.0.text', 'text must contain a non-space character'],
    [{ entries: [{ text: 'x'.repeat(32_769) }] }, 'entries.0.text', 'text must be at most 32768 characters'],
    [
      { entries: [{ text: 'ok', sources: [{ sourceId: '' }] }] },
      'entries.0.sources.0.sourceId',
      'sourceId must be at least 1 character',
    ],
    [
      { entries: [{ text: 'ok', metadata: { big: 'x'.repeat(20_000) } }] },
      'entries.0.metadata',
      'metadata must serialize to at most 16384 bytes',
    ],
    // Deeper than 64 levels: refused before any recursive check could overflow the stack.
    [
      {
        entries: [
          { text: 'ok', metadata: { deep: JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) } },
        ],
      },
      'entries.0.metadata',
      'metadata must nest at most 64 levels',
    ],
    [
      { entries: [{ text: 'ok', metadata: nested(65) }] },
      'entries.0.metadata',
      'metadata must nest at most 64 levels',
    ],
    // zod's records skip a __proto__ key: refused instead of lost.
    [
      { entries: [{ text: 'ok', metadata: JSON.parse('{"a":{"__proto__":{"polluted":true}}}') }] },
      'entries.0.metadata',
      'metadata keys must not be __proto__',
    ],
    [
      { entries: Array.from({ length: 1001 }, (_, i) => ({ text: `t${i}` })) },
      'entries',
      'entries must have at most 1000 items',
    ],
  ])(
    'remember refuses %#, naming the field and the rule, and writes nothing',
    async (request, field, rule) => {
      const { service, store, embedder } = setup();
      embedder.calls = 0;
      await expect(service.remember('scope', request as never)).rejects.toMatchObject({
        name: 'ValidationError',
        code: 'invalid_request',
        issues: expect.arrayContaining([{ field, rule }]) as unknown as object[],
      });
      expect(await store.head('scope')).toBeUndefined();
      expect(embedder.calls).toBe(0);
    },
  );

  it('accepts metadata nesting exactly 64 levels and refuses a deep revise', async () => {
    const { service } = setup();
    const written = await service.remember('scope', {
      entries: [{ text: 'ok', metadata: nested(64) as never }],
    });
    const entryId = written.entries[0]!.entryId;
    await expect(
      service.revise('scope', { entryId, text: 'new', metadata: nested(5_000) as never }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      issues: [{ field: 'metadata', rule: 'metadata must nest at most 64 levels' }],
    });
  });

  it('refuses a bad scope id, entry id and cursor', async () => {
    const { service } = setup();
    await expect(service.remember(' padded ', { entries: [{ text: 'x' }] })).rejects.toMatchObject({
      issues: [{ field: 'scopeId', rule: 'scope id must not start or end with white space' }],
    });
    await expect(service.revise('s', { entryId: 'not-a-uuid', text: 'x' })).rejects.toMatchObject({
      issues: [{ field: 'entryId', rule: 'entryId must be a UUID' }],
    });
    await expect(service.list('s', { cursor: 'garbage' })).rejects.toMatchObject({
      issues: [{ field: 'cursor', rule: 'cursor must be a value returned by this operation' }],
    });
  });

  it('reports unknown entries and revisions as not_found', async () => {
    const { service } = setup();
    await service.remember('s', { entries: [{ text: 'x' }] });
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(service.forget('s', { entryId: missing })).rejects.toMatchObject({
      code: 'not_found',
      what: 'entry',
    });
    await expect(service.get('s', { entryId: missing })).rejects.toMatchObject({ code: 'not_found' });
    await expect(service.list('s', { revision: 9 })).rejects.toMatchObject({
      code: 'not_found',
      what: 'revision',
    });
  });

  it('stores entries without vectors when the embedder fails, so a model outage never loses a write', async () => {
    const store = new InMemoryMemoryStore();
    const failing = createFakeEmbedder({ failWith: new Error('provider down') });
    const service = new MemoryService({ store, embedder: failing, retrievalPolicy: noSearchPolicy });
    const written = await service.remember('s', { entries: [{ text: 'survives an outage' }] });
    expect(written.entries[0]!.status).toBe('created');
    expect(await store.vectorIndexState('s', 1, failing.profile.id)).toMatchObject({
      missing: 1,
      complete: false,
    });
  });
});
