import { describe, expect, expectTypeOf, it } from 'vitest';
import { PowerContextApiError } from './api-error.js';
import type { OkBody, PostBody, PrepareContextRequest, SearchRequest, SearchResponse } from './api-types.js';
import { createPowerContextClient, retryAfter } from './client.js';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch that records each call and answers with `respond`. */
function stubFetch(respond: (seen: Seen) => Response | Promise<Response>) {
  const calls: Seen[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const seen: Seen = {
      url: String(input),
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(seen);
    return respond(seen);
  };
  return { calls, fetch: fetch as typeof globalThis.fetch };
}

const errorBody = (code: string, retryable: boolean, details?: object) => ({
  error: { code, message: `${code} happened`, retryable, ...(details ? { details } : {}) },
});

describe('createPowerContextClient', () => {
  it('posts JSON to the route under the base URL with the key and request id', async () => {
    const { calls, fetch } = stubFetch(() => Response.json({ memory: null, mode: 'fts', hits: [] }));
    const client = createPowerContextClient({ baseUrl: 'http://memory.test/prefix', apiKey: 'k-1', fetch });
    const result = await client.search({ scope_id: 's', query: 'q', mode: 'fts' }, { requestId: 'req-7' });
    expect(result).toEqual({ memory: null, mode: 'fts', hits: [] });
    expect(calls).toEqual([
      {
        url: 'http://memory.test/prefix/v1/memory/search',
        method: 'POST',
        headers: {
          accept: 'application/json',
          authorization: 'Bearer k-1',
          'content-type': 'application/json',
          'x-request-id': 'req-7',
        },
        body: { scope_id: 's', query: 'q', mode: 'fts' },
      },
    ]);
  });

  it('sends a write’s idempotency key as Idempotency-Key', async () => {
    const { calls, fetch } = stubFetch(() => Response.json({}));
    const client = createPowerContextClient({ baseUrl: 'http://memory.test', fetch });
    const target = { scope_id: 's', entry_id: 'e' };
    await client.remember({ scope_id: 's', entries: [{ text: 't' }] }, { idempotencyKey: 'k-remember' });
    await client.reviseEntry({ ...target, text: 't' }, { idempotencyKey: 'k-revise' });
    await client.forgetEntry(target, { idempotencyKey: 'k-forget' });
    await client.reactivateEntry(target, { idempotencyKey: 'k-reactivate' });
    await client.remember({ scope_id: 's', entries: [{ text: 't' }] });
    expect(calls.map((call) => call.headers['idempotency-key'])).toEqual([
      'k-remember',
      'k-revise',
      'k-forget',
      'k-reactivate',
      undefined,
    ]);
  });

  it('calls every route at its path and method', async () => {
    const { calls, fetch } = stubFetch(() => Response.json({}));
    const client = createPowerContextClient({ baseUrl: 'http://memory.test', fetch });
    const target = { scope_id: 's', entry_id: 'e' };
    await client.remember({ scope_id: 's', entries: [{ text: 't' }] });
    await client.listEntries({ scope_id: 's' });
    await client.getEntry(target);
    await client.reviseEntry({ ...target, text: 't' });
    await client.forgetEntry(target);
    await client.reactivateEntry(target);
    await client.purgeEntry(target);
    await client.changes({ scope_id: 's' });
    await client.prepareContext({ scope_id: 's', query: 'q' });
    await client.scopeSummary({ scope_id: 's' });
    await client.capabilities();
    await client.health();
    await client.ready();
    expect(calls.map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual([
      'POST /v1/memory/remember',
      'POST /v1/memory/entries/list',
      'POST /v1/memory/entries/get',
      'POST /v1/memory/entries/revise',
      'POST /v1/memory/entries/forget',
      'POST /v1/memory/entries/reactivate',
      'POST /v1/memory/entries/purge',
      'POST /v1/memory/changes',
      'POST /v1/context/prepare',
      'POST /v1/memory/summary',
      'GET /v1/capabilities',
      'GET /healthz',
      'GET /readyz',
    ]);
    const capabilities = calls.find((call) => call.url.endsWith('/v1/capabilities'))!;
    expect(capabilities.headers).not.toHaveProperty('content-type');
    expect(capabilities.headers).not.toHaveProperty('authorization');
  });

  it('prepares context: posts the query and the snake_case contract, answers the report as sent', async () => {
    const report = {
      memory: { artifact_id: 'a', scope_id: 's', revision: 3 },
      mode: 'fts',
      context: '<notice>…</notice>\n<retrieved_memory>\n</retrieved_memory>\n',
      total_tokens: 44,
      frame_tokens: 44,
      omission_counts: { duplicate_of: 0, chunk_limit: 0, source_cap: 0, token_budget: 0, not_selected: 0 },
    };
    const answers = [
      Response.json(report),
      Response.json(
        errorBody('invalid_request', false, {
          issues: [{ field: 'contract.token_budget', rule: 'token_budget must be at least 1' }],
        }),
        { status: 422 },
      ),
    ];
    const { calls, fetch } = stubFetch(() => answers.shift()!);
    const client = createPowerContextClient({ baseUrl: 'http://memory.test', apiKey: 'k', fetch });
    const request: PrepareContextRequest = {
      scope_id: 's',
      query: 'when do we deploy?',
      limit: 5,
      mode: 'fts',
      contract: { token_budget: 800, duplicates: { near: null }, ordering: 'generator_order' },
    };
    expect(await client.prepareContext(request)).toEqual(report);
    expect(calls[0]).toMatchObject({
      url: 'http://memory.test/v1/context/prepare',
      method: 'POST',
      body: request,
    });
    await expect(
      client.prepareContext({ scope_id: 's', query: 'q', contract: { token_budget: 0 } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      status: 422,
      details: { issues: [{ field: 'contract.token_budget', rule: 'token_budget must be at least 1' }] },
    });
  });

  it('turns an error body into a PowerContextApiError with status, retry flag, details and Retry-After', async () => {
    const answers = [
      Response.json(errorBody('revision_conflict', true), { status: 409 }),
      Response.json(errorBody('rerank_saturated', true), { status: 503, headers: { 'retry-after': '3' } }),
      Response.json(
        errorBody('invalid_request', false, {
          issues: [{ field: 'limit', rule: 'limit must be at most 50' }],
        }),
        {
          status: 422,
          headers: { 'x-request-id': 'abc' },
        },
      ),
    ];
    const { fetch } = stubFetch(() => answers.shift()!);
    const client = createPowerContextClient({ baseUrl: 'http://memory.test', fetch });

    const conflict = await client
      .remember({ scope_id: 's', entries: [{ text: 't' }] })
      .catch((error) => error);
    expect(conflict).toBeInstanceOf(PowerContextApiError);
    expect(conflict).toMatchObject({
      name: 'PowerContextApiError',
      code: 'revision_conflict',
      status: 409,
      retryable: true,
      message: 'revision_conflict happened',
      retryAfterSeconds: undefined,
    });
    await expect(client.search({ scope_id: 's', query: 'q' })).rejects.toMatchObject({
      code: 'rerank_saturated',
      status: 503,
      retryable: true,
      retryAfterSeconds: 3,
    });
    await expect(client.search({ scope_id: 's', query: 'q', limit: 51 })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 422,
      retryable: false,
      requestId: 'abc',
      details: { issues: [{ field: 'limit', rule: 'limit must be at most 50' }] },
    });
    expect(PowerContextApiError.isInstance(conflict)).toBe(true);
    expect(PowerContextApiError.isInstance(new Error('x'))).toBe(false);
  });

  it('reports an answer that is not the API JSON as invalid_response, retryable for 5xx', async () => {
    const answers = [
      new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      new Response('{"not":"an error body"}', {
        status: 404,
        headers: { 'content-type': 'application/json' },
      }),
      new Response('not json', { status: 200, headers: { 'content-type': 'application/json' } }),
    ];
    const { fetch } = stubFetch(() => answers.shift()!);
    const client = createPowerContextClient({ baseUrl: 'http://memory.test', fetch });
    await expect(client.capabilities()).rejects.toMatchObject({
      code: 'invalid_response',
      status: 502,
      retryable: true,
    });
    await expect(client.capabilities()).rejects.toMatchObject({
      code: 'invalid_response',
      status: 404,
      retryable: false,
    });
    await expect(client.capabilities()).rejects.toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('reports no answer as network_error, and a cancelled call with the abort reason', async () => {
    const refused = createPowerContextClient({
      baseUrl: 'http://memory.test',
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:7474') });
      },
    });
    const error = await refused.capabilities().catch((thrown) => thrown);
    expect(error).toMatchObject({ code: 'network_error', status: 0, retryable: true });
    expect(error.message).toBe(
      'No answer from http://memory.test: fetch failed (connect ECONNREFUSED 127.0.0.1:7474)',
    );

    const controller = new AbortController();
    const hanging = createPowerContextClient({
      baseUrl: 'http://memory.test',
      fetch: (_input, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    const pending = hanging.search({ scope_id: 's', query: 'q' }, { signal: controller.signal });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter('7', now)).toBe(7);
    expect(retryAfter('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2);
    expect(retryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfter('soon', now)).toBeUndefined();
    expect(retryAfter(null, now)).toBeUndefined();
  });

  it('types each method with the route’s generated request and response bodies', () => {
    expectTypeOf<PostBody<'/v1/memory/search'>>().toEqualTypeOf<SearchRequest>();
    expectTypeOf<OkBody<'/v1/memory/search', 'post'>>().toEqualTypeOf<SearchResponse>();
    type Client = ReturnType<typeof createPowerContextClient>;
    expectTypeOf<Parameters<Client['remember']>[0]>().toEqualTypeOf<PostBody<'/v1/memory/remember'>>();
    expectTypeOf<Parameters<Client['listEntries']>[0]>().toEqualTypeOf<PostBody<'/v1/memory/entries/list'>>();
    expectTypeOf<Parameters<Client['getEntry']>[0]>().toEqualTypeOf<PostBody<'/v1/memory/entries/get'>>();
    expectTypeOf<Parameters<Client['reviseEntry']>[0]>().toEqualTypeOf<
      PostBody<'/v1/memory/entries/revise'>
    >();
    expectTypeOf<Parameters<Client['forgetEntry']>[0]>().toEqualTypeOf<
      PostBody<'/v1/memory/entries/forget'>
    >();
    expectTypeOf<Parameters<Client['changes']>[0]>().toEqualTypeOf<PostBody<'/v1/memory/changes'>>();
    expectTypeOf<Parameters<Client['prepareContext']>[0]>().toEqualTypeOf<PostBody<'/v1/context/prepare'>>();
    expectTypeOf<ReturnType<Client['prepareContext']>>().toEqualTypeOf<
      Promise<OkBody<'/v1/context/prepare', 'post'>>
    >();
    expectTypeOf<ReturnType<Client['forgetEntry']>>().toEqualTypeOf<
      Promise<OkBody<'/v1/memory/entries/forget', 'post'>>
    >();
    expectTypeOf<Parameters<Client['purgeEntry']>[0]>().toEqualTypeOf<PostBody<'/v1/memory/entries/purge'>>();
    expectTypeOf<ReturnType<Client['purgeEntry']>>().toEqualTypeOf<
      Promise<OkBody<'/v1/memory/entries/purge', 'post'>>
    >();
    expectTypeOf<ReturnType<Client['capabilities']>>().toEqualTypeOf<
      Promise<OkBody<'/v1/capabilities', 'get'>>
    >();
    expectTypeOf<ReturnType<Client['ready']>>().toEqualTypeOf<Promise<OkBody<'/readyz', 'get'>>>();
  });
});
