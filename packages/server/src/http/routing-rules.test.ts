import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';

const ALL = secretOf('alpha-all');
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
});

describe('a known route with the wrong method', () => {
  it('answers 405 method_not_allowed with Allow, not 404', async () => {
    const { app } = createTestApp(runtime);
    const search = await app.request('/v1/memory/search', { headers: { authorization: `Bearer ${ALL}` } });
    expect(search.status).toBe(405);
    expect(search.headers.get('allow')).toBe('POST');
    expect(await search.json()).toEqual({
      error: {
        code: 'method_not_allowed',
        message: '/v1/memory/search does not answer GET; use POST',
        retryable: false,
      },
    });
    const capabilities = await app.request('/v1/capabilities', {
      method: 'POST',
      headers: { authorization: `Bearer ${ALL}` },
    });
    expect(capabilities.status).toBe(405);
    expect(capabilities.headers.get('allow')).toBe('GET, HEAD');
    const health = await app.request('/healthz', { method: 'DELETE' });
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
  });

  it('still answers 404 for a path no route serves, and 401 before either without a key', async () => {
    const { app } = createTestApp(runtime);
    const unknown = await app.request('/v1/memory/nothing', { headers: { authorization: `Bearer ${ALL}` } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    expect((await app.request('/v1/memory/search')).status).toBe(401);
  });
});

describe('POST /v1/memory/changes: 0 <= from_revision <= to_revision <= latest', () => {
  it('answers 404 for either bound past the latest revision and 422 for from above to', async () => {
    const { call } = createTestApp(runtime);
    await call('/v1/memory/remember', { scope_id: 'alpha', entries: [{ text: 'one' }] }, { key: ALL });
    await call('/v1/memory/remember', { scope_id: 'alpha', entries: [{ text: 'two' }] }, { key: ALL });
    const changes = (body: Record<string, unknown>) =>
      call('/v1/memory/changes', { scope_id: 'alpha', ...body }, { key: ALL });
    expect((await changes({ from_revision: 99 })).status).toBe(404);
    expect((await changes({ to_revision: 99 })).status).toBe(404);
    const backwards = await changes({ from_revision: 2, to_revision: 1 });
    expect(backwards.status).toBe(422);
    expect(backwards.json.error.details?.issues).toEqual([
      { field: 'from_revision', rule: 'from_revision must be at most to_revision (1)' },
    ]);
    const latest = await changes({ from_revision: 2 });
    expect(latest.status).toBe(200);
    expect(latest.json).toMatchObject({ from_revision: 2, to_revision: 2, changes: [] });
  });
});

describe('GET /v1/scopes', () => {
  it('tells a key the scopes it may use and its permissions, and nothing of other scopes', async () => {
    const { call } = createTestApp(runtime);
    const mine = await call('/v1/scopes', undefined, { key: secretOf('alpha-reader') });
    expect(mine.status).toBe(200);
    expect(mine.json).toEqual({ any_scope: false, scopes: ['alpha'], permissions: ['read'] });
    const local = createTestApp(runtime, { auth: { kind: 'local' } });
    await local.call('/v1/memory/remember', { scope_id: 'gamma', entries: [{ text: 'one' }] });
    const every = await local.call<{ any_scope: boolean; scopes: string[] }>('/v1/scopes');
    expect(every.json.any_scope).toBe(true);
    expect(every.json.scopes).toContain('gamma');
  });
});
