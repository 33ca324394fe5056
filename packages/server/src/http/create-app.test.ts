import type { z } from '@hono/zod-openapi';
import { InferenceError } from '@powercontext/inference';
import {
  type MemoryStore,
  RerankDeadlineError,
  RerankFailureError,
  RerankSaturatedError,
  StoreUnavailableError,
} from '@powercontext/memory-core';
import {
  createFakeEmbedder,
  createScriptedReranker,
  InMemoryMemoryStore,
} from '@powercontext/memory-core/testing';
import { type CreateRuntimeOptions, createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { rememberResponseSchema } from './schemas/memory-schemas.js';
import { searchResponseBaseSchema, type searchResponseSchema } from './schemas/search-schemas.js';

type RememberResponse = z.infer<typeof rememberResponseSchema>;
type SearchResponse = z.infer<typeof searchResponseSchema>;

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

const remember = (texts: string[]) => ({ scope_id: 'alpha', entries: texts.map((text) => ({ text })) });

describe('HTTP app (in process)', () => {
  it('answers not_ready with Retry-After until the runtime is open, while /healthz stays up', async () => {
    const { call } = createTestApp(undefined);
    expect((await call('/healthz')).json).toEqual({ status: 'ok' });
    const ready = await call('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json.error).toMatchObject({ code: 'not_ready', retryable: true });
    expect(ready.headers.get('retry-after')).toBe('1');
    const search = await call('/v1/memory/search', { scope_id: 'alpha', query: 'x' }, { key: ALL });
    expect(search.status).toBe(503);
    expect(search.json.error.code).toBe('not_ready');
  });

  it('keeps a well-formed x-request-id and makes one otherwise, on errors too', async () => {
    const { call } = createTestApp(await runtimeWith());
    const given = await call('/v1/capabilities', undefined, {
      key: ALL,
      headers: { 'x-request-id': 'req-42' },
    });
    expect(given.headers.get('x-request-id')).toBe('req-42');
    const unauthenticated = await call('/v1/capabilities', undefined, {
      headers: { 'x-request-id': 'bad id!' },
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/u);
  });

  it('tells malformed bodies (400) from rule violations (422, with every field path)', async () => {
    const { call } = createTestApp(await runtimeWith());
    const notJson = await call('/v1/memory/search', undefined, { key: ALL, raw: '{"scope_id": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error).toEqual({
      code: 'malformed_request',
      message: 'The body is not valid JSON',
      retryable: false,
    });
    const invalid = await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: [{ text: 'ok' }, { text: 7, kind: 'note' }], extra: true },
      { key: ALL },
    );
    expect(invalid.status).toBe(422);
    expect(invalid.json.error.details?.issues).toEqual([
      { field: 'entries.1.text', rule: 'text must be a string' },
      { field: 'extra', rule: 'is not a known field' },
    ]);
    // Rules only the runtime knows come back with the same shape and snake_case fields.
    const deep = await call(
      '/v1/memory/remember',
      {
        scope_id: 'alpha',
        entries: [{ text: 'ok', kind: 'Not A Kind', sources: [{ source_id: 'a\u0000b' }] }],
      },
      { key: ALL },
    );
    expect(deep.status).toBe(422);
    expect(deep.json.error.details?.issues).toEqual([
      { field: 'entries.0.kind', rule: 'kind must be 1-64 lowercase letters, digits, "_", "." or "-"' },
      { field: 'entries.0.sources.0.source_id', rule: 'source_id must not contain NUL (U+0000)' },
    ]);
  });

  it('accepts an entry position, returns it on reads, and names the field of a bad one', async () => {
    const { call } = createTestApp(await runtimeWith());
    const written = await call<{ entries: { entry_id: string }[] }>(
      '/v1/memory/remember',
      {
        scope_id: 'alpha',
        entries: [
          { text: 'the ferry leaves at noon', position: { source_id: 'chat-1', order: [1, 4] } },
          { text: 'bring the blue umbrella', position: { source_id: 'chat-1', order: 5 } },
        ],
      },
      { key: ALL },
    );
    expect(written.status).toBe(200);
    const got = await call<{ entry: { position: unknown } }>(
      '/v1/memory/entries/get',
      { scope_id: 'alpha', entry_id: written.json.entries[0]!.entry_id },
      { key: ALL },
    );
    expect(got.json.entry.position).toEqual({ source_id: 'chat-1', order: [1, 4] });
    const bad = await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: [{ text: 'x', position: { source_id: 'chat-1', order: [] } }] },
      { key: ALL },
    );
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json)).toContain('entries.0.position.order');
  });

  it('answers 413 for a body over the limit, before parsing it', async () => {
    const { call } = createTestApp(await runtimeWith(), { bodyLimitBytes: 2_048 });
    const big = await call('/v1/memory/remember', remember(['x'.repeat(4_000)]), { key: ALL });
    expect(big.status).toBe(413);
    expect(big.json.error).toMatchObject({ code: 'payload_too_large', retryable: false });
  });

  it('refuses a __proto__ key anywhere in the body (422 naming it) instead of losing it, escaped or not', async () => {
    const { call } = createTestApp(await runtimeWith());
    for (const raw of [
      '{"scope_id":"alpha","entries":[{"text":"t","metadata":{"__proto__":"x"}}]}',
      '{"scope_id":"alpha","entries":[{"text":"t","metadata":{"a":{"\\u005f_proto__":{"p":1}}}}]}',
    ]) {
      const refused = await call('/v1/memory/remember', undefined, { key: ALL, raw });
      expect(refused.status).toBe(422);
      expect(refused.json.error.details?.issues?.[0]).toMatchObject({
        rule: 'keys named __proto__ are not accepted',
      });
    }
    const fine = await call('/v1/memory/remember', undefined, {
      key: ALL,
      raw: '{"scope_id":"alpha","entries":[{"text":"t","metadata":{"proto":"\\u0041"}}]}',
    });
    expect(fine.status).toBe(200);
  });

  it('returns the base search response byte for byte without explain, and adds only `explain` with it', async () => {
    const { call } = createTestApp(await runtimeWith());
    await call('/v1/memory/remember', remember(['deploy on fridays', 'deploy freeze review', 'lunch']), {
      key: ALL,
    });
    const request = { scope_id: 'alpha', query: 'deploy fridays', limit: 5, mode: 'hybrid' };
    const plain = await call<SearchResponse>('/v1/memory/search', request, { key: ALL });
    expect(plain.status).toBe(200);
    // The strict base schema (RFC 0080's v1 shape) re-serializes to the very same bytes.
    expect(JSON.stringify(searchResponseBaseSchema.parse(plain.json))).toBe(plain.text);
    expect(plain.text).not.toContain('explain');

    const explained = await call<SearchResponse>(
      '/v1/memory/search',
      { ...request, explain: 'redacted' },
      { key: ALL },
    );
    const { explain, ...rest } = explained.json;
    expect(JSON.stringify(rest)).toBe(plain.text);
    expect(explain).toMatchObject({
      retrieval_policy_id: expect.stringMatching(/^powercontext\.retrieval\.rrf\.v3/),
      requested_mode: 'hybrid',
      mode_fallback: null,
      rerank: null,
    });
    expect(explain?.hits.map((hit) => hit.entry_version_id)).toEqual(
      plain.json.hits.map((hit) => hit.citation.entry_version_id),
    );
    const first = explain!.hits[0]!;
    expect(first.coarse_rank).toBe(1);
    expect(first.reranker_selected).toBeNull();
    // RRF with k = 60; the local embedder's vector channel counts 0.1 (RFC 0007).
    const weights = { fts: 1, vector: 0.1 };
    for (const channel of ['fts', 'vector'] as const) {
      const rank = first.channel_ranks[channel];
      if (rank !== undefined)
        expect(first.rrf_contributions?.[channel]).toBeCloseTo(weights[channel] / (60 + rank), 12);
    }
    expect(plain.json.hits[0]!.score).toBeCloseTo(
      Object.values(first.rrf_contributions ?? {}).reduce((sum, value) => sum + value, 0),
      12,
    );
  });

  it('refuses explain to a key without the explain permission instead of dropping it', async () => {
    const { call } = createTestApp(await runtimeWith());
    const refused = await call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'x', explain: 'redacted' },
      {
        key: READER,
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'permission_forbidden' });
    expect(refused.json.error.message).toContain('explain');
    const plain = await call('/v1/memory/search', { scope_id: 'alpha', query: 'x' }, { key: READER });
    expect(plain.status).toBe(200);
  });

  it('explains a reranked search without the text, ids or scores of candidates it did not return', async () => {
    // The reranker keeps only the last coarse candidate.
    const reranker = createScriptedReranker({ decide: (_q, candidates) => [candidates.length] });
    const { call } = createTestApp(await runtimeWith({ reranker }));
    const texts = ['alpha deploy one', 'alpha deploy two', 'alpha deploy three'];
    const written = await call<RememberResponse>('/v1/memory/remember', remember(texts), { key: ALL });
    const response = await call<SearchResponse>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'alpha deploy', limit: 3, mode: 'fts', explain: 'redacted' },
      { key: ALL },
    );
    expect(response.status).toBe(200);
    expect(response.json.hits).toHaveLength(1);
    const returned = response.json.hits[0]!.citation.entry_version_id;
    expect(response.json.explain).toMatchObject({
      rerank: { policy_id: 'test.scripted.v1', pool_size: 3, used_fallback: false, degraded_reason: null },
      hits: [{ entry_version_id: returned, coarse_rank: 3, reranker_selected: true }],
    });
    for (const entry of written.json.entries) {
      if (entry.entry_version_id !== returned) expect(response.text).not.toContain(entry.entry_version_id);
      if (entry.entry_id !== response.json.hits[0]!.citation.entry_id) {
        expect(response.text).not.toContain(entry.entry_id);
      }
    }
    const unreturned = texts.filter((text) => text !== response.json.hits[0]!.text);
    for (const text of unreturned) expect(response.text).not.toContain(text);
  });

  it('explains a fail_open degradation: coarse hits, none chosen by the reranker, and the reason', async () => {
    const reranker = createScriptedReranker({
      decide: () => {
        throw new InferenceError('inference_unavailable', 'down');
      },
    });
    const runtime = await createRuntime({
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY: 'fail_open' },
      store: new InMemoryMemoryStore(),
      reranker,
    });
    runtimes.push(runtime);
    const { call } = createTestApp(runtime);
    await call('/v1/memory/remember', remember(['deploy one', 'deploy two']), { key: ALL });
    const response = await call<SearchResponse>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'deploy', mode: 'fts', explain: 'redacted' },
      { key: ALL },
    );
    expect(response.status).toBe(200);
    expect(response.json.explain?.rerank).toMatchObject({
      used_fallback: false,
      degraded_reason: 'unavailable',
    });
    expect(response.json.explain?.hits.map((hit) => [hit.coarse_rank, hit.reranker_selected])).toEqual([
      [1, false],
      [2, false],
    ]);
  });

  it.each([
    [new InferenceError('inference_timeout', 'slow'), 503, 'inference_timeout', true],
    [new InferenceError('inference_unavailable', 'down'), 503, 'inference_unavailable', true],
    [new InferenceError('inference_invalid_output', 'garbage'), 502, 'inference_invalid_output', false],
    [new RerankFailureError('p', 'backend down'), 503, 'rerank_failure', true],
    [new RerankDeadlineError(100), 503, 'rerank_deadline', true],
    [new RerankSaturatedError(1, 0), 503, 'rerank_saturated', true],
  ])('maps a reranker failure %s to its status and retry flag', async (failure, status, code, retryable) => {
    const reranker = createScriptedReranker({
      decide: () => {
        throw failure;
      },
    });
    const { call } = createTestApp(await runtimeWith({ reranker }));
    await call('/v1/memory/remember', remember(['some text']), { key: ALL });
    const response = await call('/v1/memory/search', { scope_id: 'alpha', query: 'text' }, { key: ALL });
    expect(response.status).toBe(status);
    expect(response.json.error).toMatchObject({ code, retryable });
    expect(response.headers.get('retry-after')).toBe(retryable ? '1' : null);
  });

  it('maps an unreachable store to 503 database_unavailable and a bug to a bare 500', async () => {
    const failing = (error: Error): MemoryStore =>
      new (class extends InMemoryMemoryStore {
        override async head(): Promise<never> {
          throw error;
        }
      })();
    const down = createTestApp(await runtimeWith({ store: failing(new StoreUnavailableError('gone')) }));
    const unavailable = await down.call('/v1/memory/entries/list', { scope_id: 'alpha' }, { key: ALL });
    expect(unavailable.status).toBe(503);
    expect(unavailable.json.error).toMatchObject({ code: 'database_unavailable', retryable: true });
    expect(unavailable.headers.get('retry-after')).toBe('1');

    const buggy = createTestApp(await runtimeWith({ store: failing(new TypeError('secret detail')) }));
    const broken = await buggy.call('/v1/memory/entries/list', { scope_id: 'alpha' }, { key: ALL });
    expect(broken.status).toBe(500);
    expect(broken.json.error).toEqual({
      code: 'internal_error',
      message: 'The server failed to handle the request',
      retryable: false,
    });
  });

  it('answers capability_unavailable: 409 for an incomplete vector index, 503 for a failed query embedding', async () => {
    let failing = true;
    const embedder = createFakeEmbedder({
      failWith: () => (failing ? new Error('embedder down') : undefined),
    });
    const { call } = createTestApp(await runtimeWith({ embedder }));
    await call('/v1/memory/remember', remember(['written while the embedder was down']), { key: ALL });
    const noIndex = await call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'down', mode: 'vector' },
      {
        key: ALL,
      },
    );
    expect(noIndex.status).toBe(409);
    expect(noIndex.json.error).toMatchObject({
      code: 'capability_unavailable',
      retryable: false,
      details: { capability: 'vector_index' },
    });
    // auto falls back to full text instead.
    const auto = await call<SearchResponse>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'down' },
      { key: ALL },
    );
    expect(auto.json.mode).toBe('fts');

    failing = false;
    const fresh = createTestApp(await runtimeWith({ embedder }));
    await fresh.call('/v1/memory/remember', remember(['indexed text']), { key: ALL });
    failing = true;
    const queryFailed = await fresh.call(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'indexed', mode: 'hybrid' },
      { key: ALL },
    );
    expect(queryFailed.status).toBe(503);
    expect(queryFailed.json.error).toMatchObject({
      code: 'capability_unavailable',
      retryable: true,
      details: { capability: 'query_embedding' },
    });
  });

  it('times out a slow request with 503 request_timeout and aborts the search', async () => {
    let sawAbort = false;
    const reranker = createScriptedReranker({
      decide: (_q, _c, _l, { signal }) =>
        new Promise<number[]>((_, reject) => {
          signal?.addEventListener('abort', () => {
            sawAbort = true;
            reject(signal.reason);
          });
        }),
    });
    const { call } = createTestApp(await runtimeWith({ reranker }), { requestTimeoutMs: 150 });
    await call('/v1/memory/remember', remember(['slow text']), { key: ALL });
    const response = await call('/v1/memory/search', { scope_id: 'alpha', query: 'slow' }, { key: ALL });
    expect(response.status).toBe(503);
    expect(response.json.error).toMatchObject({ code: 'request_timeout', retryable: true });
    expect(sawAbort).toBe(true);
  });

  it('logs one JSON line per request with its id and key id, never the key or memory text', async () => {
    const { call, logs } = createTestApp(await runtimeWith());
    const secretText = 'the launch code is swordfish';
    await call('/v1/memory/remember', remember([secretText]), {
      key: ALL,
      headers: { 'x-request-id': 'r-1' },
    });
    await call('/v1/memory/search', { scope_id: 'alpha', query: 'swordfish' }, { key: ALL });
    await call('/v1/memory/search', { scope_id: 'alpha', query: 'swordfish' }, { key: 'wrong-key' });
    const lines = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.event === 'http.request')).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      event: 'http.request',
      request_id: 'r-1',
      key_id: 'alpha-all',
      status: 200,
    });
    expect(lines[2]).toMatchObject({ status: 401, error_code: 'unauthenticated' });
    const all = logs.join('\n');
    for (const secret of [ALL, 'wrong-key', 'swordfish', 'launch code']) expect(all).not.toContain(secret);
  });
});
