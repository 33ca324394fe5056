import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, parseApiKeys } from '../auth/api-keys.js';
import { handleMcpHttp } from '../mcp/http.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { MCP_MAX_BATCH } from './create-app.js';

// Issue 19: the three findings of the security probe, and the headers and capabilities it noted.

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
});

const ALL = secretOf('alpha-all');
const READER = secretOf('alpha-reader');
const REMEMBER = { scope_id: 'alpha', entries: [{ text: 'rebinding write' }] };
const mcp = { mcp: handleMcpHttp };
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** One JSON-RPC message; ids count up so a batch's answers can be told apart. */
let nextId = 1;
const rpc = (method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params,
});
const INITIALIZE = rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'security-test', version: '1' },
});
const remembering = (text: string) =>
  rpc('tools/call', {
    name: 'remember_memory',
    arguments: { scope_id: 'alpha', entries: [{ text }] },
  });

interface RpcAnswer {
  id: number;
  result?: { isError?: boolean; content: { type: string; text: string }[] };
  error?: { code: number; message: string };
}

describe('keyless local server: DNS rebinding (finding 3)', () => {
  const local = () => createTestApp(runtime, { auth: { kind: 'local' }, ...mcp });

  it.each(['127.0.0.1:7613', 'localhost:7613', '[::1]:7613', 'localhost', '127.0.0.2'])(
    'serves Host %s',
    async (host) => {
      const answer = await local().call('/v1/capabilities', undefined, { headers: { host } });
      expect(answer.status, answer.text).toBe(200);
    },
  );

  it.each(['attacker.example:7613', 'attacker.example', '127.0.0.1.attacker.example', '0x7f000001'])(
    'refuses Host %s with 403 host_forbidden, on the API and on /mcp, and writes nothing',
    async (host) => {
      const { call } = local();
      const write = await call('/v1/memory/remember', REMEMBER, { headers: { host } });
      expect(write.status).toBe(403);
      expect(write.json.error.code).toBe('host_forbidden');
      const tools = await call('/mcp', INITIALIZE, { headers: { host, ...MCP_HEADERS } });
      expect(tools.status).toBe(403);
      expect((await runtime.memory.forScope('alpha').list()).entries).toEqual([]);
    },
  );

  it('refuses a page of a foreign origin (the rebinding page itself) even with a loopback Host', async () => {
    const { call } = local();
    for (const origin of ['http://attacker.example:7613', 'null', 'https://evil.test']) {
      const headers = { host: '127.0.0.1:7613', origin };
      const write = await call('/v1/memory/remember', REMEMBER, { headers });
      expect(write.status, origin).toBe(403);
      expect(write.json.error.code).toBe('origin_forbidden');
      const listed = await call('/mcp', rpc('tools/list'), { headers: { ...headers, ...MCP_HEADERS } });
      expect(listed.status, origin).toBe(403);
    }
    expect((await runtime.memory.forScope('alpha').list()).entries).toEqual([]);
  });

  it('serves pages of loopback origins (the inspector, a local tool)', async () => {
    const answer = await local().call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'x' },
      {
        headers: { host: '127.0.0.1:7613', origin: 'http://127.0.0.1:7613' },
      },
    );
    expect(answer.status, answer.text).toBe(200);
  });
});

describe('server with keys: origins', () => {
  const keyed = () =>
    createTestApp(runtime, {
      origins: { loopbackOnly: false, allowedOrigins: new Set(['https://app.example.com']) },
    });

  it('refuses a page of an origin that is not allowed, and gives it no CORS grant', async () => {
    const { call } = keyed();
    const answer = await call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'x' },
      {
        key: ALL,
        headers: { host: 'memory.example.com', origin: 'https://evil.example' },
      },
    );
    expect(answer.status).toBe(403);
    expect(answer.json.error.code).toBe('origin_forbidden');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflight of an allowed origin and grants it without credentials', async () => {
    const { app, call } = keyed();
    const preflight = await app.request('/v1/memory/search', {
      method: 'OPTIONS',
      headers: {
        host: 'memory.example.com',
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const answer = await call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'x' },
      {
        key: ALL,
        headers: { host: 'memory.example.com', origin: 'https://app.example.com' },
      },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it("serves the server's own pages (same origin) without CORS headers", async () => {
    const answer = await keyed().call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'x' },
      {
        key: ALL,
        headers: { host: 'memory.example.com:8443', origin: 'https://memory.example.com:8443' },
      },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('MCP: every tool call takes a token (finding 2)', () => {
  /** A key allowed 3 requests a minute, as in the probe. */
  function limited(maxInFlight = 4) {
    const keys = parseApiKeys(
      JSON.stringify({
        keys: [
          {
            id: 'three',
            sha256: hashApiKey('three-secret'),
            scopes: ['alpha'],
            permissions: ['read', 'write'],
            rate_limit: { requests: 3, window_seconds: 60 },
            max_in_flight: maxInFlight,
          },
        ],
      }),
      'keys',
    );
    return createTestApp(runtime, { auth: { kind: 'keys', keys }, ...mcp });
  }

  it(`charges each call of a batch: batches of ${MCP_MAX_BATCH} writes get 3 through, not ${3 * MCP_MAX_BATCH}`, async () => {
    const { call } = limited();
    const before = (await runtime.memory.forScope('alpha').list()).entries.length;
    // The handshake and listing the tools cost nothing.
    for (const message of [INITIALIZE, rpc('tools/list'), rpc('ping')]) {
      const answer = await call('/mcp', message, { key: 'three-secret', headers: MCP_HEADERS });
      expect(answer.status, answer.text).toBe(200);
    }
    const outcomes: string[] = [];
    for (let post = 0; post < 3; post += 1) {
      const batch = Array.from({ length: MCP_MAX_BATCH }, (_, index) =>
        remembering(`batch ${post} write ${index}`),
      );
      const answer = await call<RpcAnswer[]>('/mcp', batch, { key: 'three-secret', headers: MCP_HEADERS });
      expect(answer.status, answer.text).toBe(200);
      for (const reply of answer.json) {
        outcomes.push(
          reply.result?.isError ? JSON.parse(reply.result.content[0]!.text).error.code : 'stored',
        );
      }
    }
    expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'rate_limited')).toHaveLength(3 * MCP_MAX_BATCH - 3);
    const after = (await runtime.memory.forScope('alpha').list()).entries.length;
    expect(after - before).toBe(3);
  });

  it(`refuses a batch of more than ${MCP_MAX_BATCH} messages whole, before any of it runs`, async () => {
    const { call } = limited();
    const before = (await runtime.memory.forScope('alpha').list()).entries.length;
    const batch = Array.from({ length: MCP_MAX_BATCH + 1 }, (_, index) => remembering(`too many ${index}`));
    const answer = await call<{ error: { code: number; message: string } }>('/mcp', batch, {
      key: 'three-secret',
      headers: MCP_HEADERS,
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32600 });
    expect(answer.json.error.message).toContain(`at most ${MCP_MAX_BATCH} messages`);
    expect((await runtime.memory.forScope('alpha').list()).entries.length).toBe(before);
  });

  it('holds an in-flight slot per tool call: calls past the key’s slots are rate_limited at once', async () => {
    const { call } = limited(2);
    const batch = Array.from({ length: 3 }, () =>
      rpc('tools/call', { name: 'search_memory', arguments: { scope_id: 'alpha', query: 'write' } }),
    );
    const answer = await call<RpcAnswer[]>('/mcp', batch, { key: 'three-secret', headers: MCP_HEADERS });
    const codes = answer.json.map((reply) =>
      reply.result?.isError ? JSON.parse(reply.result.content[0]!.text).error.code : 'ok',
    );
    // The SDK starts the three calls together: two take the slots, the third finds none.
    expect(codes.filter((code) => code === 'ok')).toHaveLength(2);
    expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(1);
  });
  it('charges the tools issue 15 added like every other tool call (list_scopes, list_memory_changes)', async () => {
    const { call } = limited();
    const batch = [
      rpc('tools/call', { name: 'list_scopes', arguments: {} }),
      rpc('tools/call', { name: 'list_memory_changes', arguments: { scope_id: 'alpha' } }),
      rpc('tools/call', { name: 'list_scopes', arguments: {} }),
      rpc('tools/call', { name: 'list_memory_changes', arguments: { scope_id: 'alpha' } }),
    ];
    const answer = await call<RpcAnswer[]>('/mcp', batch, { key: 'three-secret', headers: MCP_HEADERS });
    expect(answer.status, answer.text).toBe(200);
    const codes = answer.json.map((reply) =>
      reply.result?.isError ? JSON.parse(reply.result.content[0]!.text).error.code : 'ok',
    );
    expect(codes.filter((code) => code === 'ok')).toHaveLength(3);
    expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(1);
  });
});

describe('per-key in-flight slots on the HTTP routes (finding 1)', () => {
  it('answers 429 beyond the slots while requests run, and frees them when they end', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    const search = slow.memory.forScope;
    // Every search of this runtime waits for the gate, so requests stay in flight.
    slow.memory.forScope = (scopeId) => {
      const scoped = search(scopeId);
      return {
        ...scoped,
        search: async (...args) => {
          await gate;
          return scoped.search(...args);
        },
      };
    };
    try {
      const keys = parseApiKeys(
        JSON.stringify({
          keys: [
            { id: 'two', sha256: hashApiKey('two'), scopes: '*', permissions: ['read'], max_in_flight: 2 },
          ],
        }),
        'keys',
      );
      const { call } = createTestApp(slow, { auth: { kind: 'keys', keys } });
      const body = { scope_id: 'alpha', query: 'x' };
      const running = [
        call('/v1/memory/search', body, { key: 'two' }),
        call('/v1/memory/search', body, { key: 'two' }),
      ];
      await new Promise((resolve) => setTimeout(resolve, 20));
      const third = await call('/v1/memory/search', body, { key: 'two' });
      expect(third.status).toBe(429);
      expect(third.json.error).toMatchObject({ code: 'rate_limited', retryable: true });
      expect(third.headers.get('retry-after')).toBe('1');
      release();
      expect((await Promise.all(running)).map((answer) => answer.status)).toEqual([200, 200]);
      expect((await call('/v1/memory/search', body, { key: 'two' })).status).toBe(200);
    } finally {
      release();
      await slow.close();
    }
  });

  it('holds a slot while GET /v1/scopes reads the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    const scopes = slow.memory.scopes.bind(slow.memory);
    slow.memory.scopes = async () => {
      await gate;
      return scopes();
    };
    try {
      const keys = parseApiKeys(
        JSON.stringify({
          keys: [
            { id: 'one', sha256: hashApiKey('one'), scopes: '*', permissions: ['read'], max_in_flight: 1 },
          ],
        }),
        'keys',
      );
      const { call } = createTestApp(slow, { auth: { kind: 'keys', keys } });
      const running = call('/v1/scopes', undefined, { key: 'one' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await call('/v1/scopes', undefined, { key: 'one' });
      expect(second.status).toBe(429);
      expect(second.json.error).toMatchObject({ code: 'rate_limited' });
      release();
      expect((await running).status).toBe(200);
      expect((await call('/v1/scopes', undefined, { key: 'one' })).status).toBe(200);
    } finally {
      release();
      await slow.close();
    }
  });
});

describe('headers and capabilities', () => {
  it('marks every answer private and not to be sniffed or framed, errors included', async () => {
    const { call } = createTestApp(runtime);
    for (const answer of [
      await call('/v1/memory/search', { scope_id: 'alpha', query: 'x' }, { key: ALL }),
      await call('/v1/memory/search', { scope_id: 'beta', query: 'x' }, { key: ALL }),
      await call('/healthz'),
    ]) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('offers explain only to a key that holds the explain permission', async () => {
    const { call } = createTestApp(runtime);
    const reader = await call<{ explain: string[] }>('/v1/capabilities', undefined, { key: READER });
    const all = await call<{ explain: string[] }>('/v1/capabilities', undefined, { key: ALL });
    expect(reader.json.explain).toEqual([]);
    expect(all.json.explain).toEqual(['redacted']);
  });
});
