import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, type CallResult, createCall } from '../testing-support/http-call.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { openapiViolation } from '../testing-support/openapi-conformance.js';
import { secretOf } from '../testing-support/test-keys.js';

/** Issue 29, "Several scopes", over a real HTTP server: scope_ids on search and context preparation. */

const BOTH = secretOf('alpha-beta');
const BOTH_READER = secretOf('alpha-beta-reader');
const ALPHA = secretOf('alpha-all');

interface Ref {
  artifact_id: string;
  scope_id: string;
  revision: number;
}
interface Hit {
  scope_id: string;
  citation: { memory_ref: Ref; entry_id: string; entry_version_id: string };
  text: string;
  score: number;
}
interface SearchBody {
  memory: Ref | null;
  scopes?: { scope_id: string; memory: Ref | null }[];
  hits: Hit[];
  explain?: {
    multi_scope: { scope_count: number; rerank: string } | null;
    hits: { scope_id: string; scope_rank: number | null }[];
  };
}
interface ErrorBody {
  error: { code: string; message: string; details?: { issues?: { field: string; rule: string }[] } };
}

let runtime: Runtime;
let server: ReturnType<typeof serve>;
let call: Call;
const revisions: Record<string, number> = {};

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  const { app } = createTestApp(runtime);
  const base = await new Promise<string>((resolve) => {
    server = serve({ port: 0, hostname: '127.0.0.1', fetch: app.fetch }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
  call = createCall((path, init) => fetch(`${base}${path}`, init));
  for (const [scope, texts] of [
    ['alpha', ['Alpha deploys on Fridays after the freeze.', 'Alpha lunch is pizza.']],
    ['beta', ['Beta deploys every morning.']],
    ['beta', ['Beta froze deploys during the audit.']],
  ] as const) {
    const written = await call<{ memory: Ref }>(
      '/v1/memory/remember',
      { scope_id: scope, entries: texts.map((text) => ({ text })) },
      { key: BOTH },
    );
    expect(written.status, written.text).toBe(200);
    revisions[scope] = written.json.memory.revision;
  }
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await runtime.close();
});

function conforming<T>(path: string, response: CallResult<T>): CallResult<T> {
  expect(openapiViolation('POST', path, response), response.text).toBeUndefined();
  return response;
}

describe('search and prepare context over several scopes (issue 29)', () => {
  it('fuses hits of both scopes, each naming its scope, and lists each scope’s revision', async () => {
    const response = conforming(
      '/v1/memory/search',
      await call<SearchBody>(
        '/v1/memory/search',
        { scope_ids: ['alpha', 'beta'], query: 'deploys', mode: 'fts', explain: 'redacted' },
        { key: BOTH },
      ),
    );
    expect(response.status, response.text).toBe(200);
    const body = response.json;
    expect(body.memory).toBeNull();
    expect(body.scopes?.map((scope) => [scope.scope_id, scope.memory?.revision])).toEqual([
      ['alpha', revisions.alpha],
      ['beta', revisions.beta],
    ]);
    expect(new Set(body.hits.map((hit) => hit.scope_id))).toEqual(new Set(['alpha', 'beta']));
    for (const hit of body.hits) {
      const read = body.scopes!.find((scope) => scope.scope_id === hit.scope_id)!.memory!;
      expect(hit.citation.memory_ref).toEqual(read);
      expect(hit.text.startsWith(hit.scope_id === 'alpha' ? 'Alpha' : 'Beta')).toBe(true);
    }
    expect(body.explain?.multi_scope).toEqual({ scope_count: 2, rerank: 'none' });
    expect(body.explain?.hits.map((hit) => hit.scope_id)).toEqual(body.hits.map((hit) => hit.scope_id));
    expect(body.explain?.hits[0]?.scope_rank).toBe(1);

    const single = conforming(
      '/v1/memory/search',
      await call<SearchBody>('/v1/memory/search', { scope_id: 'alpha', query: 'deploys' }, { key: BOTH }),
    );
    expect(single.json.scopes).toBeUndefined();
    expect(single.json.hits.every((hit) => hit.scope_id === 'alpha')).toBe(true);
  });

  it('prepares one context whose chunks cite their own scopes', async () => {
    const response = conforming(
      '/v1/context/prepare',
      await call<{ scopes: { scope_id: string }[]; selected: { citation: { memory_ref: Ref } }[] }>(
        '/v1/context/prepare',
        {
          scope_ids: ['beta', 'alpha'],
          query: 'deploys',
          mode: 'fts',
          min_revisions: { beta: revisions.beta! },
        },
        { key: BOTH_READER },
      ),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.json.scopes.map((scope) => scope.scope_id)).toEqual(['beta', 'alpha']);
    const cited = new Set(response.json.selected.map((chunk) => chunk.citation.memory_ref.scope_id));
    expect(cited).toEqual(new Set(['alpha', 'beta']));
  });

  it('403 names the first scope the key may not read, and refuses explain without the permission', async () => {
    for (const path of ['/v1/memory/search', '/v1/context/prepare']) {
      const forbidden = conforming(
        path,
        await call<ErrorBody>(
          path,
          { scope_ids: ['alpha', 'beta', 'gamma'], query: 'deploys' },
          { key: ALPHA },
        ),
      );
      expect(forbidden.status).toBe(403);
      expect(forbidden.json.error).toMatchObject({
        code: 'scope_forbidden',
        message: 'This API key may not use scope "beta"',
      });
    }
    const explain = await call<ErrorBody>(
      '/v1/memory/search',
      { scope_ids: ['alpha', 'beta'], query: 'deploys', explain: 'redacted' },
      { key: BOTH_READER },
    );
    expect(explain.status).toBe(403);
    expect(explain.json.error.code).toBe('permission_forbidden');
  });

  it('422 names the field and the rule for scope lists that break one', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, 'scope_ids', 'exactly one of scope_id and scope_ids is required'],
      [
        { scope_id: 'alpha', scope_ids: ['beta'] },
        'scope_ids',
        'exactly one of scope_id and scope_ids is required',
      ],
      [{ scope_ids: [] }, 'scope_ids', 'scope_ids must name at least 1 scope'],
      [
        { scope_ids: Array.from({ length: 17 }, (_, i) => `s${i}`) },
        'scope_ids',
        'scope_ids must name at most 16 scopes',
      ],
      [{ scope_ids: ['alpha', 'alpha'] }, 'scope_ids.1', 'scope_ids must not name a scope twice'],
      [{ scope_ids: ['alpha'], min_revision: 1 }, 'min_revision', 'use min_revisions with scope_ids'],
      [
        { scope_ids: ['alpha'], min_revisions: { beta: 1 } },
        'min_revisions.beta',
        'min_revisions keys must be scopes named in scope_ids',
      ],
      [
        { scope_ids: ['alpha'], min_revisions: { alpha: 0 } },
        'min_revisions.alpha',
        'min_revisions values must be at least 1',
      ],
      [
        { scope_id: 'alpha', min_revisions: { alpha: 1 } },
        'min_revisions',
        'min_revisions goes with scope_ids; use min_revision with scope_id',
      ],
    ];
    for (const path of ['/v1/memory/search', '/v1/context/prepare']) {
      for (const [fields, field, rule] of cases) {
        const response = conforming(
          path,
          await call<ErrorBody>(path, { ...fields, query: 'deploys' }, { key: BOTH }),
        );
        expect(response.status, JSON.stringify(fields)).toBe(422);
        expect(response.json.error.details?.issues).toContainEqual({ field, rule });
      }
    }
  });

  it('409 when one scope’s min_revisions entry is not visible yet', async () => {
    const response = conforming(
      '/v1/memory/search',
      await call<ErrorBody>(
        '/v1/memory/search',
        { scope_ids: ['alpha', 'beta'], query: 'deploys', min_revisions: { beta: revisions.beta! + 1 } },
        { key: BOTH },
      ),
    );
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('revision_not_visible');
  });

  // Last: it writes to both scopes, which moves the revisions the tests above read.
  it('applies a filter inside each scope, and each hit carries its entry’s fields', async () => {
    for (const scope of ['alpha', 'beta']) {
      const written = await call<{ memory: Ref }>(
        '/v1/memory/remember',
        {
          scope_id: scope,
          entries: [
            {
              text: `${scope} decided: deploys need two reviewers.`,
              kind: 'decision',
              tags: ['Release'],
              pinned: true,
              occurred_at: '2026-06-03T10:00:00Z',
              metadata: { scope },
            },
          ],
        },
        { key: BOTH },
      );
      expect(written.status, written.text).toBe(200);
    }
    const body = { scope_ids: ['alpha', 'beta'], query: 'deploys', mode: 'fts', limit: 2 };
    const response = conforming(
      '/v1/memory/search',
      await call<SearchBody & { hits: (Hit & Record<string, unknown>)[] }>(
        '/v1/memory/search',
        { ...body, filter: { kinds: ['decision'], tags_any: ['release'] } },
        { key: BOTH },
      ),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.json.hits.map((hit) => hit.scope_id).sort()).toEqual(['alpha', 'beta']);
    for (const hit of response.json.hits) {
      expect(hit).toMatchObject({
        kind: 'decision',
        tags: ['release'],
        pinned: true,
        occurred_at: '2026-06-03T10:00:00.000Z',
        metadata: { scope: hit.scope_id },
        revision: hit.citation.memory_ref.revision,
      });
      expect(typeof hit.written_at).toBe('string');
    }
    const bad = await call<ErrorBody>(
      '/v1/memory/search',
      { ...body, filter: { colour: 'red' } },
      { key: BOTH },
    );
    expect(bad.status).toBe(422);
    expect(bad.json.error.details?.issues?.[0]?.field).toMatch(/^filter/u);
  });
});
