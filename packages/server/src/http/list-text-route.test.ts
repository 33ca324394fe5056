import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { listEntriesResponseSchema } from './schemas/memory-schemas.js';

// The list's `text` over HTTP (RFC 0014, "List"); the stores' behaviour is memory-core's list-text
// contract, run on the in-memory store, PGlite and PostgreSQL.
const ALL = secretOf('alpha-all');
let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
});

interface Refusal {
  error: { code: string; details: { issues: { field: string; rule: string }[] } };
}

describe('POST /v1/memory/entries/list with text', () => {
  it('keeps the entries whose text contains it in any case, with filter and order, and counts them', async () => {
    const { call } = createTestApp(runtime);
    for (const [text, kind] of [
      ['The Ledgerly INVOICE run starts on Monday.', 'fact'],
      ['Lunch is at noon.', 'note'],
      ['Invoices older than a year are archived (50% of them).', 'note'],
      ['Invoice numbers restart every January.', 'fact'],
    ] as const) {
      const written = await call(
        '/v1/memory/remember',
        { scope_id: 'alpha', entries: [{ text, kind }] },
        { key: ALL },
      );
      expect(written.status, written.text).toBe(200);
    }
    const list = await call(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', text: 'invoice', order: 'newest', limit: 2 },
      { key: ALL },
    );
    expect(list.status, list.text).toBe(200);
    const page = listEntriesResponseSchema.parse(list.json);
    expect(JSON.stringify(page)).toBe(list.text);
    expect(page.total).toBe(3);
    expect(page.entries.map((entry) => entry.text)).toEqual([
      'Invoice numbers restart every January.',
      'Invoices older than a year are archived (50% of them).',
    ]);
    const rest = await call(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', text: 'invoice', order: 'newest', limit: 2, cursor: page.next_cursor },
      { key: ALL },
    );
    expect(listEntriesResponseSchema.parse(rest.json)).toMatchObject({
      total: 3,
      entries: [{ text: 'The Ledgerly INVOICE run starts on Monday.' }],
    });
    const facts = await call(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', text: 'INVOICE', filter: { kinds: ['note'] } },
      { key: ALL },
    );
    expect(listEntriesResponseSchema.parse(facts.json)).toMatchObject({
      total: 1,
      entries: [{ text: 'Invoices older than a year are archived (50% of them).' }],
    });
    const percent = await call('/v1/memory/entries/list', { scope_id: 'alpha', text: '%' }, { key: ALL });
    expect(listEntriesResponseSchema.parse(percent.json).total).toBe(1);
  });

  it('answers 422 invalid_request naming text and the rule for an empty, long, non-string or NUL text', async () => {
    const { call } = createTestApp(runtime);
    const cases: [unknown, string][] = [
      ['', 'text must be at least 1 character'],
      ['x'.repeat(201), 'text must be at most 200 characters'],
      [7, 'text must be a string'],
      ['a\u0000b', 'text must not contain NUL (U+0000)'],
    ];
    for (const [text, rule] of cases) {
      const refused = await call<Refusal>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', text },
        { key: ALL },
      );
      expect(refused.status, rule).toBe(422);
      expect(refused.json.error.code).toBe('invalid_request');
      expect(refused.json.error.details.issues).toEqual([{ field: 'text', rule }]);
    }
  });
});
