import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { AppEnv } from './app-env.js';
import { INSPECTOR_CSP, registerInspectorRoutes } from './inspector-routes.js';

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(() => runtime.close());

const ALL = secretOf('alpha-all');

describe('POST /v1/memory/summary', () => {
  it('answers the head revision and the entries by state, counted across list pages', async () => {
    const { call } = createTestApp(runtime);
    const empty = await call('/v1/memory/summary', { scope_id: 'alpha' }, { key: ALL });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ memory: null, entries: { active: 0, inactive: 0 } });

    // 450 entries: more than two list pages of 200.
    const texts = Array.from({ length: 450 }, (_, index) => ({ text: `note number ${index}` }));
    for (let start = 0; start < texts.length; start += 150) {
      const wrote = await call(
        '/v1/memory/remember',
        { scope_id: 'alpha', entries: texts.slice(start, start + 150) },
        { key: ALL },
      );
      expect(wrote.status).toBe(200);
    }
    const list = await call<{ entries: { entry_id: string }[] }>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', limit: 3 },
      { key: ALL },
    );
    for (const entry of list.json.entries.slice(0, 2)) {
      const forgot = await call(
        '/v1/memory/entries/forget',
        { scope_id: 'alpha', entry_id: entry.entry_id },
        { key: ALL },
      );
      expect(forgot.status).toBe(200);
    }
    const summary = await call<{ memory: { revision: number; scope_id: string }; entries: unknown }>(
      '/v1/memory/summary',
      { scope_id: 'alpha' },
      { key: secretOf('alpha-reader') },
    );
    expect(summary.status).toBe(200);
    expect(summary.json.memory).toMatchObject({ scope_id: 'alpha', revision: 5 });
    expect(summary.json.entries).toEqual({ active: 448, inactive: 2 });
  });

  it('refuses a scope the key may not use, and names a bad field', async () => {
    const { call } = createTestApp(runtime);
    const other = await call('/v1/memory/summary', { scope_id: 'beta' }, { key: ALL });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('scope_forbidden');
    const bad = await call('/v1/memory/summary', { scope_id: '' }, { key: ALL });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details?.issues).toEqual([
      { field: 'scope_id', rule: 'scope_id must be at least 1 character' },
    ]);
    const anonymous = await call('/v1/memory/summary', { scope_id: 'alpha' });
    expect(anonymous.status).toBe(401);
  });
});

describe('the inspector at /ui', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-inspector-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'assets', 'main-1.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'notes.txt'), 'not served');

  const appWith = (assets: string, keyless = false) => {
    const app = new OpenAPIHono<AppEnv>();
    registerInspectorRoutes(app, { keyless }, assets);
    app.onError((error, c) => c.json({ error: String(error) }, 404));
    return app;
  };

  it('serves its page and scripts with a strict CSP, nosniff and no framing', async () => {
    const app = appWith(dir);
    const page = await app.request('/ui/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toBe(INSPECTOR_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/u);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const script = await app.request('/ui/assets/main-1.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log(1)');
    const redirect = await app.request('/ui');
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/ui/']);
  });

  it('serves only the built files it knows (no other types, no paths out of the folder)', async () => {
    const app = appWith(dir);
    expect((await app.request('/ui/assets/notes.txt')).status).toBe(404);
    expect((await app.request('/ui/assets/..%2Findex.html')).status).toBe(404);
    expect((await app.request('/ui/assets/%2e%2e%2f%2e%2e%2fpackage.json')).status).toBe(404);
  });

  it('tells the page whether it must ask for a key first, without a key and without caching', async () => {
    const withKeys = await appWith(dir).request('/ui/session.json');
    expect(withKeys.status).toBe(200);
    expect(withKeys.headers.get('cache-control')).toBe('no-store');
    expect(await withKeys.json()).toEqual({ keys_required: true });
    expect(await (await appWith(dir, true).request('/ui/session.json')).json()).toEqual({
      keys_required: false,
    });
  });

  it('says the inspector was not built when its files are missing', async () => {
    const app = appWith(join(dir, 'missing'));
    const page = await app.request('/ui/');
    expect(await page.text()).toContain('not built');
  });

  it('is mounted by createApp only when the setting is on, under the same security headers', async () => {
    const off = createTestApp(runtime);
    expect((await off.app.request('/ui/')).status).toBe(404);
    const on = createTestApp(runtime, { ui: true });
    const page = await on.app.request('/ui/');
    // The built page when `pnpm build` ran; otherwise the answer that says it was not built.
    expect([200, 404]).toContain(page.status);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });
});
