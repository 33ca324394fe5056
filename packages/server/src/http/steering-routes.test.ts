import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { prepareContextResponseSchema } from './schemas/context-schemas.js';
import { getEntryResponseSchema, listEntriesResponseSchema } from './schemas/memory-schemas.js';
import { searchResponseBaseSchema } from './schemas/search-schemas.js';

const ALL = secretOf('alpha-all');
let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
});

describe('steering a search over HTTP (RFC 0014)', () => {
  it('takes tags, pinned and occurred_at, returns them with every hit, filters search, context and list', async () => {
    const { call } = createTestApp(runtime);
    const written = await call<{ entries: { entry_id: string }[] }>(
      '/v1/memory/remember',
      {
        scope_id: 'alpha',
        entries: [
          {
            text: 'We chose Postgres for the billing ledger.',
            kind: 'decision',
            tags: ['Billing'],
            pinned: true,
            occurred_at: '2026-06-03T10:00:00+02:00',
            sources: [{ source_id: 'meeting-7' }],
            metadata: { team: 'payments' },
          },
          { text: 'The billing ledger is backed up nightly.', kind: 'fact', metadata: { team: 'ops' } },
        ],
      },
      { key: ALL },
    );
    expect(written.status, written.text).toBe(200);
    const [decisionId] = written.json.entries.map((entry) => entry.entry_id);

    const search = await call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'billing ledger', filter: { kinds: ['decision'] } },
      { key: ALL },
    );
    expect(search.status, search.text).toBe(200);
    const parsed = searchResponseBaseSchema.parse(search.json);
    expect(JSON.stringify(parsed)).toBe(search.text);
    expect(parsed.hits).toHaveLength(1);
    expect(parsed.hits[0]).toMatchObject({
      kind: 'decision',
      tags: ['billing'],
      pinned: true,
      occurred_at: '2026-06-03T08:00:00.000Z',
      metadata: { team: 'payments' },
      sources: [{ source_id: 'meeting-7' }],
      revision: 1,
    });
    expect(Date.parse(parsed.hits[0]!.written_at)).not.toBeNaN();

    const context = await call(
      '/v1/context/prepare',
      { scope_id: 'alpha', query: 'billing ledger', filter: { metadata: { team: 'ops' } } },
      { key: ALL },
    );
    expect(context.status, context.text).toBe(200);
    const prepared = prepareContextResponseSchema.parse(context.json);
    expect(prepared.context).toContain('backed up nightly');
    expect(prepared.context).not.toContain('We chose Postgres');

    const list = await call(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', filter: { pinned: false }, order: 'newest' },
      { key: ALL },
    );
    expect(list.status, list.text).toBe(200);
    const page = listEntriesResponseSchema.parse(list.json);
    expect(JSON.stringify(page)).toBe(list.text);
    expect(page.total).toBe(1);
    expect(page.entries.map((entry) => entry.kind)).toEqual(['fact']);

    const revised = await call(
      '/v1/memory/entries/revise',
      {
        scope_id: 'alpha',
        entry_id: decisionId,
        text: 'We chose Postgres for the billing ledger.',
        pinned: false,
        occurred_at: null,
      },
      { key: ALL },
    );
    expect(revised.status, revised.text).toBe(200);
    const got = await call(
      '/v1/memory/entries/get',
      { scope_id: 'alpha', entry_id: decisionId },
      { key: ALL },
    );
    const entry = getEntryResponseSchema.parse(got.json).entry;
    expect(entry).toMatchObject({ version: 2, tags: ['billing'], pinned: false, occurred_at: null });
    expect(entry.written_at).toBe(entry.created_at);
  });

  it('answers 422 naming the filter field and the rule, for unknown keys and bad values', async () => {
    const { call } = createTestApp(runtime);
    const unknown = await call<{ error: { details: { issues: { field: string; rule: string }[] } } }>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'ledger', filter: { colour: 'red' } },
      { key: ALL },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details.issues).toEqual([
      { field: 'filter.colour', rule: 'is not a known field' },
    ]);
    const bad = await call<{ error: { details: { issues: { field: string; rule: string }[] } } }>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', filter: { tags_all: [], occurred_after: 'June' } },
      { key: ALL },
    );
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.issues).toEqual(
      expect.arrayContaining([
        { field: 'filter.tags_all', rule: 'tags_all must have at least 1 item' },
        expect.objectContaining({ field: 'filter.occurred_after' }),
      ]),
    );
    const tags = await call<{ error: { details: { issues: { field: string; rule: string }[] } } }>(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: [{ text: 'x', tags: ['t'.repeat(65)] }] },
      { key: ALL },
    );
    expect(tags.status).toBe(422);
    expect(tags.json.error.details.issues).toEqual([
      { field: 'entries.0.tags.0', rule: 'tag must be at most 64 characters' },
    ]);
  });
});
