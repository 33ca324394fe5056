import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { type CreateRuntimeOptions, createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { hashApiKey, parseApiKeys } from '../auth/api-keys.js';
import { handleMcpHttp } from '../mcp/http.js';
import { GatedStore, slowEmbedder } from '../testing-support/gated-store.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { ChangesResponse, EntryWriteResponse, RememberResponse } from '../testing-support/wire-types.js';

const ALL = secretOf('alpha-all');
const READER = secretOf('alpha-reader');
const runtimes: Runtime[] = [];

async function runtimeWith(options: Omit<CreateRuntimeOptions, 'env'> = {}): Promise<Runtime> {
  const runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore(), ...options });
  runtimes.push(runtime);
  return runtime;
}

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
});

const remember = (...texts: string[]) => ({ scope_id: 'alpha', entries: texts.map((text) => ({ text })) });
const keyed = (key: string) => ({ key: ALL, headers: { 'Idempotency-Key': key } });

describe('idempotent writes over HTTP (in process)', () => {
  it('answers a repeated keyed write with the first body, byte for byte, and Idempotent-Replayed: true', async () => {
    const { call } = createTestApp(await runtimeWith());
    const first = await call<RememberResponse>(
      '/v1/memory/remember',
      remember('one', 'two'),
      keyed('k-remember'),
    );
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await call('/v1/memory/remember', remember('one', 'two'), keyed('k-remember'));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);

    const entryId = first.json.entries[0]!.entry_id;
    const writes: [string, Record<string, unknown>][] = [
      [
        '/v1/memory/entries/revise',
        { scope_id: 'alpha', entry_id: entryId, text: 'one, revised', metadata: { z: 1, a: [2] } },
      ],
      ['/v1/memory/entries/forget', { scope_id: 'alpha', entry_id: entryId }],
      ['/v1/memory/entries/reactivate', { scope_id: 'alpha', entry_id: entryId }],
    ];
    for (const [path, body] of writes) {
      const written = await call<EntryWriteResponse>(path, body, keyed(`k-${path}`));
      expect(written.json.status, path).toBe('created');
      const repeated = await call(path, body, keyed(`k-${path}`));
      expect(repeated.headers.get('idempotent-replayed'), path).toBe('true');
      expect(repeated.text, path).toBe(written.text);
    }
    const changes = await call<ChangesResponse>('/v1/memory/changes', { scope_id: 'alpha' }, { key: ALL });
    expect(changes.json.memory?.revision).toBe(4);
    expect(changes.json.changes).toHaveLength(5);
  });

  it('refuses a key reused for another body or another route with 422 idempotency_key_reused', async () => {
    const { call } = createTestApp(await runtimeWith());
    const first = await call<RememberResponse>('/v1/memory/remember', remember('kept'), keyed('k-1'));
    const entryId = first.json.entries[0]!.entry_id;
    const reuses: [string, Record<string, unknown>][] = [
      ['/v1/memory/remember', remember('another body')],
      ['/v1/memory/entries/forget', { scope_id: 'alpha', entry_id: entryId }],
    ];
    for (const [path, body] of reuses) {
      const reused = await call(path, body, keyed('k-1'));
      expect(reused.status, path).toBe(422);
      expect(reused.json.error).toMatchObject({ code: 'idempotency_key_reused', retryable: false });
      expect(reused.json.error.message).toContain('"k-1"');
    }
    const list = await call<{ entries: unknown[] }>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha' },
      { key: ALL },
    );
    expect(list.json.entries).toHaveLength(1);
  });

  it('checks the Idempotency-Key header: 422 invalid_request naming it and the rule', async () => {
    const { call } = createTestApp(await runtimeWith());
    const bad: [string, string][] = [
      ['', 'Idempotency-Key must be at least 1 character'],
      ['k'.repeat(256), 'Idempotency-Key must be at most 255 characters'],
      ['two words', 'Idempotency-Key must be visible ASCII characters only (! to ~, no spaces)'],
      ['caf\u00e9', 'Idempotency-Key must be visible ASCII characters only (! to ~, no spaces)'],
    ];
    for (const [key, rule] of bad) {
      const answer = await call('/v1/memory/remember', remember('never'), keyed(key));
      expect(answer.status, key).toBe(422);
      expect(answer.json.error).toMatchObject({
        code: 'invalid_request',
        details: { issues: [{ field: 'Idempotency-Key', rule }] },
      });
    }
    const list = await call<{ memory: unknown }>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha' },
      { key: ALL },
    );
    expect(list.json.memory).toBeNull();
  });

  it('checks the key’s permission before it replays', async () => {
    const runtime = await runtimeWith();
    const { call } = createTestApp(runtime);
    await call('/v1/memory/remember', remember('shared'), keyed('k-shared'));
    const reader = await call('/v1/memory/remember', remember('shared'), {
      key: READER,
      headers: { 'Idempotency-Key': 'k-shared' },
    });
    expect(reader.status).toBe(403);
    expect(reader.json.error.code).toBe('permission_forbidden');
  });

  it('keeps the stored answers per API key: another key’s write with the same Idempotency-Key is its own (issue 28)', async () => {
    const runtime = await runtimeWith();
    const keys = parseApiKeys(
      JSON.stringify({
        keys: [
          {
            id: 'writer-a',
            sha256: hashApiKey('a-secret'),
            scopes: ['alpha'],
            permissions: ['read', 'write'],
          },
          { id: 'writer-b', sha256: hashApiKey('b-secret'), scopes: ['alpha'], permissions: ['write'] },
        ],
      }),
      'idempotency test keys',
    );
    const { call } = createTestApp(runtime, { auth: { kind: 'keys', keys } });
    const as = (secret: string, key: string) => ({ key: secret, headers: { 'Idempotency-Key': key } });

    // Another body under the same Idempotency-Key: written, with its own ids; not 422.
    const a = await call<RememberResponse>('/v1/memory/remember', remember('from a'), as('a-secret', 'k-1'));
    const b = await call<RememberResponse>('/v1/memory/remember', remember('from b'), as('b-secret', 'k-1'));
    expect(b.status, b.text).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.json.entries[0]).toMatchObject({ status: 'created' });
    expect(b.json.entries[0]!.entry_id).not.toBe(a.json.entries[0]!.entry_id);
    expect(b.json.memory.revision).toBe(2);

    // The same body under another key's Idempotency-Key: a write of its own, not the first key's answer.
    const a2 = await call('/v1/memory/remember', remember('same words'), as('a-secret', 'k-2'));
    const b2 = await call<RememberResponse>(
      '/v1/memory/remember',
      remember('same words'),
      as('b-secret', 'k-2'),
    );
    expect(b2.status, b2.text).toBe(200);
    expect(b2.headers.get('idempotent-replayed')).toBeNull();
    expect(b2.json.entries[0]).toMatchObject({ status: 'duplicate' });
    expect(b2.text).not.toBe(a2.text);

    // Each key replays its own answers, byte for byte, and is refused another body under its own key.
    for (const [first, body, secret, key] of [
      [a, remember('from a'), 'a-secret', 'k-1'],
      [b, remember('from b'), 'b-secret', 'k-1'],
      [b2, remember('same words'), 'b-secret', 'k-2'],
    ] as const) {
      const again = await call('/v1/memory/remember', body, as(secret, key));
      expect(again.headers.get('idempotent-replayed'), `${secret} ${key}`).toBe('true');
      expect(again.text).toBe(first.text);
    }
    const reused = await call('/v1/memory/remember', remember('from b'), as('a-secret', 'k-1'));
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe('idempotency_key_reused');

    // A keyless local server (no key, so no owner) has the scope's shared namespace: none of the above.
    const local = createTestApp(runtime, { auth: { kind: 'local' } });
    const fromLocal = await local.call<RememberResponse>('/v1/memory/remember', remember('from local'), {
      headers: { 'Idempotency-Key': 'k-1' },
    });
    expect(fromLocal.status, fromLocal.text).toBe(200);
    expect(fromLocal.headers.get('idempotent-replayed')).toBeNull();
    expect(fromLocal.json.entries[0]).toMatchObject({ status: 'created' });
    expect((await runtime.memory.forScope('alpha').list()).entries).toHaveLength(4);
  });

  it('lets one of concurrent duplicates write; the others answer its result', async () => {
    const { call } = createTestApp(await runtimeWith());
    const answers = await Promise.all(
      // As many as the key's in-flight slots (4).
      Array.from({ length: 4 }, () => call('/v1/memory/remember', remember('a', 'b', 'c'), keyed('k-race'))),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
  });
});

describe('request timeouts of writes (in process)', () => {
  it('stops a write that has not begun its transaction: 503 request_timeout, and nothing is ever written', async () => {
    const runtime = await runtimeWith({ embedder: slowEmbedder(400) });
    const { call } = createTestApp(runtime, { requestTimeoutMs: 100 });
    const answer = await call('/v1/memory/remember', remember('too slow to embed'), keyed('k-slow'));
    expect(answer.status).toBe(503);
    expect(answer.json.error).toMatchObject({ code: 'request_timeout', retryable: true });
    expect(answer.json.error.message).toContain('before it wrote anything');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await runtime.memory.forScope('alpha').changes()).memory).toBeUndefined();
  });

  it('answers 504 write_outcome_unknown once the transaction began; the write commits and a keyed retry replays it', async () => {
    const gated = new GatedStore();
    const runtime = await runtimeWith({ store: gated.store });
    // Long enough to parse and embed 1,000 entries on a busy machine; the gate holds the transaction.
    const { call } = createTestApp(runtime, { requestTimeoutMs: 1_500 });
    const request = remember(...Array.from({ length: 1000 }, (_, i) => `entry ${i}`));
    gated.close();
    const answer = await call('/v1/memory/remember', request, keyed('k-outcome'));
    expect(answer.status).toBe(504);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.json.error).toMatchObject({
      code: 'write_outcome_unknown',
      retryable: true,
      details: { scope_id: 'alpha', from_revision: 0, idempotency_key: 'k-outcome' },
    });
    expect(answer.json.error.message).toContain('same Idempotency-Key');
    // Meanwhile a second write of the scope waits for the first, so it has not begun either: 503.
    const second = await call('/v1/memory/remember', remember('queued behind the first'), keyed('k-second'));
    expect(second.json.error).toMatchObject({ code: 'request_timeout' });
    expect(gated.waiting).toBe(1);

    await gated.open();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const changes = await runtime.memory.forScope('alpha').changes({ limit: 200 });
    expect(changes.memory?.revision).toBe(1);
    const retried = await call<RememberResponse>('/v1/memory/remember', request, keyed('k-outcome'));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.json.memory.revision).toBe(1);
    expect(retried.json.entries).toHaveLength(1000);
    // The queued write never ran: it was stopped before its transaction.
    expect((await runtime.memory.forScope('alpha').changes()).memory?.revision).toBe(1);
  });

  it('says how to find out without a key: the changes after the revision the write started from', async () => {
    const gated = new GatedStore();
    const runtime = await runtimeWith({ store: gated.store });
    const { call } = createTestApp(runtime, { requestTimeoutMs: 100 });
    await call('/v1/memory/remember', remember('first'), { key: ALL });
    gated.close();
    const answer = await call('/v1/memory/remember', remember('second'), { key: ALL });
    expect(answer.status).toBe(504);
    expect(answer.json.error.details).toEqual({ scope_id: 'alpha', from_revision: 1 });
    expect(answer.json.error.message).toContain('from_revision 1');
    await gated.open();
    const changes = await call<ChangesResponse>(
      '/v1/memory/changes',
      { scope_id: 'alpha', from_revision: 1 },
      { key: ALL },
    );
    expect(changes.json.changes.map((change) => ('entry' in change ? change.entry.text : 'purged'))).toEqual([
      'second',
    ]);
  });

  it('answers 504 for an MCP tool write that began, and 503 for one that had not', async () => {
    const gated = new GatedStore();
    const runtime = await runtimeWith({ store: gated.store });
    // Long enough for the tool call to reach the gated write on a loaded machine (100 ms was not: the
    // write had not begun, and the answer was 503).
    const { call } = createTestApp(runtime, { requestTimeoutMs: 1_000, mcp: handleMcpHttp });
    const tool = (id: number, text: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'remember_memory', arguments: { ...remember(text), idempotency_key: `mcp-${id}` } },
    });
    const headers = { accept: 'application/json, text/event-stream' };
    gated.close();
    const began = await call('/mcp', tool(1, 'through MCP'), { key: ALL, headers });
    expect(began.status).toBe(504);
    expect(began.json.error).toMatchObject({
      code: 'write_outcome_unknown',
      details: { scope_id: 'alpha', from_revision: 0, idempotency_key: 'mcp-1' },
    });
    const queued = await call('/mcp', tool(2, 'queued'), { key: ALL, headers });
    expect(queued.json.error.code).toBe('request_timeout');
    await gated.open();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const entries = (await runtime.memory.forScope('alpha').list()).entries.map((entry) => entry.text);
    expect(entries).toEqual(['through MCP']);
  });
});
