import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchResponseBaseSchema } from '../http/schemas/search-schemas.js';
import type { Call } from './http-call.js';
import { secretOf } from './test-keys.js';
import type {
  CapabilitiesResponse,
  ChangesResponse,
  EntryWriteResponse,
  GetEntryResponse,
  ListEntriesResponse,
  PrepareContextResponse,
  PurgeResponse,
  RememberResponse,
  SearchResponse,
} from './wire-types.js';

/** A running server the contract drives over HTTP; `stop` ends it gracefully and returns its exit code. */
export interface ContractServer {
  call: Call;
  stop(): Promise<number | null>;
}

export interface ServerContractOptions {
  /** Starts a server with the test keys file and a body limit of 64 KiB. */
  start(): Promise<ContractServer>;
}

const ALL = secretOf('alpha-all');
const READER = secretOf('alpha-reader');
const PURGER = secretOf('alpha-purger');
const BETA = secretOf('beta-all');
const THROTTLED = secretOf('throttled');
const UNKNOWN_ENTRY = '00000000-0000-4000-8000-000000000000';

const TEXTS = {
  freeze: 'The deploy freeze starts on Friday at noon',
  lunch: 'Lunch is served in the atrium',
  review: 'Friday deploys need a second review',
};

/** Every memory route with a valid body for `scope` (entry routes name `entryId`). */
function memoryRoutes(scope: string, entryId: string): [string, Record<string, unknown>][] {
  return [
    ['/v1/memory/search', { scope_id: scope, query: 'deploy' }],
    ['/v1/memory/remember', { scope_id: scope, entries: [{ text: 'intruder text' }] }],
    ['/v1/memory/entries/list', { scope_id: scope }],
    ['/v1/memory/entries/get', { scope_id: scope, entry_id: entryId }],
    ['/v1/memory/entries/revise', { scope_id: scope, entry_id: entryId, text: 'intruder revision' }],
    ['/v1/memory/entries/forget', { scope_id: scope, entry_id: entryId }],
    ['/v1/memory/entries/reactivate', { scope_id: scope, entry_id: entryId }],
    ['/v1/memory/entries/purge', { scope_id: scope, entry_id: entryId }],
    ['/v1/memory/changes', { scope_id: scope }],
    ['/v1/context/prepare', { scope_id: scope, query: 'deploy' }],
  ];
}

/**
 * The HTTP v1 contract, driven against a real server process: the same tests for every backend.
 * Scope "alpha" belongs to the alpha keys, scope "beta" to the beta key.
 */
export function describeServerContract(name: string, options: ServerContractOptions): void {
  describe(`HTTP v1 contract: ${name}`, () => {
    let server: ContractServer;
    let call: Call;
    const ids: Record<keyof typeof TEXTS, string> = { freeze: '', lunch: '', review: '' };

    beforeAll(async () => {
      server = await options.start();
      call = server.call;
      const written = await call<RememberResponse>(
        '/v1/memory/remember',
        {
          scope_id: 'alpha',
          entries: Object.values(TEXTS).map((text) => ({ text, sources: [{ source_id: 'chat-1' }] })),
        },
        { key: ALL },
      );
      expect(written.status).toBe(200);
      expect(written.json.memory).toMatchObject({ scope_id: 'alpha', revision: 1 });
      (Object.keys(TEXTS) as (keyof typeof TEXTS)[]).forEach((key, index) => {
        ids[key] = written.json.entries[index]!.entry_id;
      });
    });

    afterAll(async () => {
      // Graceful shutdown ends with exit code 0.
      expect(await server?.stop()).toBe(0);
    });

    it('serves liveness, readiness and capabilities, and echoes the request id', async () => {
      expect((await call('/healthz')).json).toEqual({ status: 'ok' });
      // Without a key: ready or not, nothing about the databases (issue 28); with any valid key, the detail.
      expect((await call('/readyz')).json).toEqual({ status: 'ready' });
      expect((await call('/readyz', undefined, { key: READER })).json).toEqual({
        status: 'ready',
        database: { reachable: true, migrations_current: true },
        replicas: [],
      });
      const capabilities = await call<CapabilitiesResponse>('/v1/capabilities', undefined, {
        key: READER,
        headers: { 'x-request-id': 'contract-1' },
      });
      expect(capabilities.headers.get('x-request-id')).toBe('contract-1');
      expect(capabilities.json).toMatchObject({
        api_version: 'v1',
        search_modes: ['auto', 'fts', 'vector', 'hybrid'],
        embedding_profile: { id: expect.stringContaining('@'), dimension: expect.any(Number) },
        retrieval_policy_id: expect.stringMatching(/^powercontext\.retrieval\.rrf\.v3/),
        // The reader key lacks the explain permission, so no explain level is offered to it.
        explain: [],
      });
    });

    it.each([
      ['fts', 'fts', ['fts']],
      ['vector', 'vector', ['vector']],
      ['hybrid', 'hybrid', ['fts', 'vector']],
      ['auto', 'hybrid', ['fts', 'vector']],
    ])(
      'searches in %s mode, every hit citing the revision it was read from',
      async (mode, answered, channels) => {
        const response = await call<SearchResponse>(
          '/v1/memory/search',
          { scope_id: 'alpha', query: 'Friday deploy freeze', limit: 5, mode },
          { key: READER },
        );
        expect(response.status).toBe(200);
        expect(response.json.mode).toBe(answered);
        expect(response.json.hits.length).toBeGreaterThan(0);
        expect(response.json.hits[0]!.text).toBe(TEXTS.freeze);
        for (const hit of response.json.hits) {
          expect(hit.citation.memory_ref).toEqual(response.json.memory);
          expect(Object.values(ids)).toContain(hit.citation.entry_id);
          expect(hit.matched_by.every((channel) => channels.includes(channel))).toBe(true);
          expect(hit.score).toBeGreaterThan(0);
        }
      },
    );

    it('returns the base search response byte for byte without explain, and adds only `explain` with it', async () => {
      const request = { scope_id: 'alpha', query: 'deploy review', limit: 3, mode: 'hybrid' };
      const plain = await call<SearchResponse>('/v1/memory/search', request, { key: ALL });
      expect(JSON.stringify(searchResponseBaseSchema.parse(plain.json))).toBe(plain.text);
      const explained = await call<SearchResponse>(
        '/v1/memory/search',
        { ...request, explain: 'redacted' },
        { key: ALL },
      );
      const { explain, ...rest } = explained.json;
      expect(JSON.stringify(rest)).toBe(plain.text);
      expect(explain?.hits).toHaveLength(plain.json.hits.length);
      expect(explain?.hits[0]).toMatchObject({ coarse_rank: 1, reranker_selected: null });
      const refused = await call('/v1/memory/search', { ...request, explain: 'redacted' }, { key: READER });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('permission_forbidden');
    });

    it('prepares context: the evidence within the token budget, every other candidate with its reason', async () => {
      const prepare = async (contract?: Record<string, unknown>) => {
        const response = await call<PrepareContextResponse>(
          '/v1/context/prepare',
          {
            scope_id: 'alpha',
            query: 'Friday deploy freeze',
            mode: 'fts',
            ...(contract ? { contract } : {}),
          },
          { key: READER },
        );
        expect(response.status).toBe(200);
        // Retrieved text appears only inside the framed context.
        const { context, ...report } = response.json;
        for (const text of Object.values(TEXTS)) expect(JSON.stringify(report)).not.toContain(text);
        const accounted = [...report.selected, ...report.omitted].map((item) => item.ref);
        expect(accounted.sort((a, b) => a - b)).toEqual(accounted.map((_, index) => index + 1));
        expect(Object.values(report.omission_counts).reduce((sum, n) => sum + n, 0)).toBe(
          report.omitted.length,
        );
        expect(report.total_tokens).toBeLessThanOrEqual(report.contract.token_budget);
        expect(report.total_tokens).toBe(
          report.frame_tokens + report.selected.reduce((sum, chunk) => sum + chunk.tokens, 0),
        );
        return response.json;
      };

      const roomy = await prepare();
      expect(roomy.mode).toBe('fts');
      expect(roomy.evidence).toMatchObject({ kind: 'selection', model_id: 'none' });
      expect(roomy.evidence.policy_id).toMatch(/^powercontext\.retrieval\.rrf\./);
      expect(roomy.selected.map((chunk) => chunk.citation.entry_id).slice(0, 2)).toEqual([
        ids.freeze,
        ids.review,
      ]);
      expect(roomy.selected[0]!.citation.memory_ref).toMatchObject({ scope_id: 'alpha' });
      expect(roomy.selected.every((chunk) => chunk.source === 'chat-1')).toBe(true);
      expect(roomy.context).toContain(`>\n${TEXTS.freeze}\n</chunk>`);
      expect(roomy.omitted).toEqual([]);

      // Room for the frame and the best chunk: the rest is left out for the budget.
      const tight = await prepare({ token_budget: roomy.frame_tokens + roomy.selected[0]!.tokens });
      expect(tight.selected.map((chunk) => chunk.citation.entry_id)).toEqual([ids.freeze]);
      expect(tight.omitted.map((omission) => [omission.ref, omission.reason])).toEqual(
        roomy.selected.slice(1).map((chunk) => [chunk.ref, 'token_budget']),
      );
      expect(tight.context).not.toContain(TEXTS.review);

      // Every entry cites chat-1: one chunk per source keeps the best one only.
      const capped = await prepare({ per_source_cap: 1 });
      expect(capped.selected.map((chunk) => chunk.citation.entry_id)).toEqual([ids.freeze]);
      expect(capped.omission_counts.source_cap).toBe(roomy.selected.length - 1);

      const invalid = await call(
        '/v1/context/prepare',
        { scope_id: 'alpha', query: 'deploy', contract: { max_chunks: 0, token_budget: 3 } },
        { key: READER },
      );
      expect(invalid.status).toBe(422);
      expect(invalid.json.error.details?.issues?.map((issue) => issue.field)).toEqual([
        'contract.max_chunks',
      ]);
      const small = await call(
        '/v1/context/prepare',
        { scope_id: 'alpha', query: 'deploy', contract: { token_budget: 3 } },
        { key: READER },
      );
      expect(small.status).toBe(422);
      expect(small.json.error.details?.issues?.map((issue) => issue.field)).toEqual([
        'contract.token_budget',
      ]);
    });

    it('revises an entry: search and get see the new text, the old version stays readable at its revision', async () => {
      const revised = await call<EntryWriteResponse>(
        '/v1/memory/entries/revise',
        { scope_id: 'alpha', entry_id: ids.lunch, text: 'Lunch moved to the rooftop garden' },
        { key: ALL },
      );
      expect(revised.status).toBe(200);
      expect(revised.json).toMatchObject({ entry_id: ids.lunch, status: 'created' });
      const revision = revised.json.memory.revision;
      const current = await call<GetEntryResponse>(
        '/v1/memory/entries/get',
        { scope_id: 'alpha', entry_id: ids.lunch },
        { key: READER },
      );
      expect(current.json.entry).toMatchObject({
        text: 'Lunch moved to the rooftop garden',
        version: 2,
        entry_version_id: revised.json.entry_version_id,
        revision,
      });
      const before = await call<GetEntryResponse>(
        '/v1/memory/entries/get',
        { scope_id: 'alpha', entry_id: ids.lunch, revision: revision - 1 },
        { key: READER },
      );
      expect(before.json.entry).toMatchObject({ text: TEXTS.lunch, version: 1 });
      for (const mode of ['fts', 'vector', 'hybrid']) {
        const found = await call<SearchResponse>(
          '/v1/memory/search',
          { scope_id: 'alpha', query: 'lunch rooftop garden atrium', mode },
          { key: READER },
        );
        const texts = found.json.hits.map((hit) => hit.text);
        expect(texts).not.toContain(TEXTS.lunch);
        expect(texts).toContain('Lunch moved to the rooftop garden');
      }
    });

    it('forgets an entry so that no search mode returns it; reactivate brings it back', async () => {
      const forgotten = await call<EntryWriteResponse>(
        '/v1/memory/entries/forget',
        { scope_id: 'alpha', entry_id: ids.review },
        { key: ALL },
      );
      expect(forgotten.json.status).toBe('created');
      for (const mode of ['auto', 'fts', 'vector', 'hybrid']) {
        const found = await call<SearchResponse>(
          '/v1/memory/search',
          { scope_id: 'alpha', query: TEXTS.review, mode, limit: 50 },
          { key: READER },
        );
        expect(found.status).toBe(200);
        expect(found.json.hits.map((hit) => hit.citation.entry_id)).not.toContain(ids.review);
      }
      const active = await call<ListEntriesResponse>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha' },
        { key: READER },
      );
      expect(active.json.entries.map((entry) => entry.entry_id)).not.toContain(ids.review);
      const inactive = await call<ListEntriesResponse>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', state: 'inactive' },
        { key: READER },
      );
      expect(inactive.json.entries.map((entry) => [entry.entry_id, entry.state])).toEqual([
        [ids.review, 'inactive'],
      ]);
      const again = await call<EntryWriteResponse>(
        '/v1/memory/entries/forget',
        { scope_id: 'alpha', entry_id: ids.review },
        { key: ALL },
      );
      expect(again.json.status).toBe('unchanged');

      await call('/v1/memory/entries/reactivate', { scope_id: 'alpha', entry_id: ids.review }, { key: ALL });
      const back = await call<SearchResponse>(
        '/v1/memory/search',
        { scope_id: 'alpha', query: TEXTS.review, mode: 'fts' },
        { key: READER },
      );
      expect(back.json.hits.map((hit) => hit.citation.entry_id)).toContain(ids.review);
    });

    it('lists changes between revisions and pages entries with a cursor', async () => {
      const changes = await call<ChangesResponse>(
        '/v1/memory/changes',
        { scope_id: 'alpha' },
        { key: READER },
      );
      expect(changes.status).toBe(200);
      expect(changes.json.from_revision).toBe(0);
      expect(changes.json.to_revision).toBe(changes.json.memory?.revision);
      expect(changes.json.changes.slice(0, 3).map((change) => change.operation)).toEqual([
        'remember',
        'remember',
        'remember',
      ]);
      const first = await call<ListEntriesResponse>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', limit: 2 },
        { key: READER },
      );
      expect(first.json.entries).toHaveLength(2);
      expect(first.json.next_cursor).toEqual(expect.any(String));
      const second = await call<ListEntriesResponse>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', limit: 2, cursor: first.json.next_cursor },
        { key: READER },
      );
      expect(second.json.memory).toEqual(first.json.memory);
      const seen = [...first.json.entries, ...second.json.entries].map((entry) => entry.entry_id);
      expect(new Set(seen).size).toBe(seen.length);
      const bad = await call(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', cursor: 'nonsense' },
        { key: READER },
      );
      expect(bad.status).toBe(422);
      expect(bad.json.error.details?.issues).toEqual([
        { field: 'cursor', rule: 'cursor must be a value returned by this operation' },
      ]);
    });

    it('purges an entry with the purge permission only: no mode, read or change shows its text again', async () => {
      const secret = 'The staging vault combination is 31-17-5';
      const written = await call<RememberResponse>(
        '/v1/memory/remember',
        { scope_id: 'alpha', entries: [{ text: secret, sources: [{ source_id: 'chat-1' }] }] },
        { key: ALL },
      );
      const entryId = written.json.entries[0]!.entry_id;
      const revision = written.json.memory.revision;
      const target = { scope_id: 'alpha', entry_id: entryId };
      // write is not enough.
      const refused = await call('/v1/memory/entries/purge', target, { key: ALL });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('permission_forbidden');
      const purged = await call<PurgeResponse>('/v1/memory/entries/purge', target, { key: PURGER });
      expect(purged.status, purged.text).toBe(200);
      expect(purged.json).toMatchObject({
        status: 'purged',
        memory: { scope_id: 'alpha', revision: revision + 1 },
        tombstone: { entry_id: entryId, version: 2, revision: revision + 1, purged_by: 'alpha-purger' },
      });
      for (const mode of ['auto', 'fts', 'vector', 'hybrid']) {
        const found = await call<SearchResponse>(
          '/v1/memory/search',
          { scope_id: 'alpha', query: secret, mode, limit: 50 },
          { key: READER },
        );
        expect(found.status).toBe(200);
        expect(found.text, mode).not.toContain('vault');
      }
      for (const at of [{}, { revision }]) {
        const gone = await call('/v1/memory/entries/get', { ...target, ...at }, { key: READER });
        expect(gone.status).toBe(410);
        expect(gone.json.error).toMatchObject({ code: 'entry_purged', details: { entry_id: entryId } });
      }
      const listed = await call<ListEntriesResponse>(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', revision },
        { key: READER },
      );
      expect(listed.json.purged?.map((marker) => marker.entry_id)).toEqual([entryId]);
      const changes = await call<ChangesResponse>(
        '/v1/memory/changes',
        { scope_id: 'alpha', from_revision: revision - 1 },
        { key: READER },
      );
      expect(changes.json.changes.map((change) => [change.operation, 'purged' in change])).toEqual([
        ['remember', true],
        ['purge', true],
      ]);
      for (const response of [listed, changes]) expect(response.text).not.toContain('vault');
      const again = await call<PurgeResponse>('/v1/memory/entries/purge', target, { key: PURGER });
      expect(again.json).toMatchObject({ status: 'unchanged', memory: { revision: revision + 1 } });
    });

    it('answers 401 without a key or with an unknown key, on every route behind auth', async () => {
      const routes: [string, unknown][] = [
        ...memoryRoutes('alpha', ids.freeze),
        ['/v1/capabilities', undefined],
      ];
      for (const [path, body] of routes) {
        for (const key of [undefined, 'not-a-key']) {
          const response = await call(path, body, key === undefined ? {} : { key });
          expect(response.status, `${path} ${key}`).toBe(401);
          expect(response.json.error).toMatchObject({ code: 'unauthenticated', retryable: false });
          expect(response.headers.get('www-authenticate')).toBe('Bearer realm="powercontext"');
        }
      }
      const mcp = await call('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(mcp.status).toBe(401);
    });

    it('never lets a key for scope beta read or write scope alpha, through any route', async () => {
      const alphaBefore = await call<ChangesResponse>(
        '/v1/memory/changes',
        { scope_id: 'alpha' },
        { key: READER },
      );
      for (const [path, body] of memoryRoutes('alpha', ids.freeze)) {
        const forbidden = await call(path, body, { key: BETA });
        expect(forbidden.status, path).toBe(403);
        expect(forbidden.json.error.code).toBe('scope_forbidden');
        // A scope that does not exist answers the same: the key cannot tell them apart.
        const [, unknownBody] = memoryRoutes('gamma', ids.freeze).find(([other]) => other === path)!;
        const unknown = await call(path, unknownBody, { key: BETA });
        expect(unknown.status).toBe(403);
        expect(unknown.text.replace('gamma', 'alpha')).toBe(forbidden.text);
      }
      // Inside its own scope, the beta key reaches nothing of alpha: the entry ids are unknown there.
      await call(
        '/v1/memory/remember',
        { scope_id: 'beta', entries: [{ text: 'beta deploy notes' }] },
        { key: BETA },
      );
      for (const [path, body] of memoryRoutes('beta', ids.freeze)) {
        const response = await call(path, body, { key: BETA });
        for (const text of Object.values(TEXTS)) expect(response.text, path).not.toContain(text);
        for (const id of [ids.lunch, ids.review, alphaBefore.json.memory?.artifact_id ?? '']) {
          expect(response.text, path).not.toContain(id);
        }
        if (path.includes('/entries/') && !path.endsWith('/list')) {
          expect(response.status, path).toBe(404);
          expect(response.json.error.code).toBe('not_found');
        } else {
          expect(response.status, path).toBe(200);
          expect(response.text, path).not.toContain(ids.freeze);
        }
      }
      const alphaAfter = await call<ChangesResponse>(
        '/v1/memory/changes',
        { scope_id: 'alpha' },
        { key: READER },
      );
      expect(alphaAfter.json.memory).toEqual(alphaBefore.json.memory);
      const freeze = await call<GetEntryResponse>(
        '/v1/memory/entries/get',
        { scope_id: 'alpha', entry_id: ids.freeze },
        { key: READER },
      );
      expect(freeze.json.entry).toMatchObject({ text: TEXTS.freeze, version: 1, state: 'active' });
    });

    it('refuses writes to a read-only key with 403 permission_forbidden', async () => {
      for (const [path, body] of memoryRoutes('alpha', ids.freeze).slice(1)) {
        if (!/remember|revise|forget|reactivate|purge/u.test(path)) continue;
        const response = await call(path, body, { key: READER });
        expect(response.status, path).toBe(403);
        expect(response.json.error.code).toBe('permission_forbidden');
      }
    });

    it('answers 404 for an unknown entry or revision, 422 with the field path, 400 for broken JSON', async () => {
      for (const path of [
        '/v1/memory/entries/get',
        '/v1/memory/entries/revise',
        '/v1/memory/entries/forget',
      ]) {
        const body = {
          scope_id: 'alpha',
          entry_id: UNKNOWN_ENTRY,
          ...(path.endsWith('revise') ? { text: 'x' } : {}),
        };
        const response = await call(path, body, { key: ALL });
        expect(response.status, path).toBe(404);
        expect(response.json.error).toMatchObject({ code: 'not_found', retryable: false });
      }
      const revision = await call(
        '/v1/memory/entries/list',
        { scope_id: 'alpha', revision: 9_999 },
        { key: READER },
      );
      expect(revision.status).toBe(404);
      const invalid = await call(
        '/v1/memory/search',
        { scope_id: 'alpha', query: '', limit: 51, mode: 'semantic' },
        { key: READER },
      );
      expect(invalid.status).toBe(422);
      expect(invalid.json.error.details?.issues?.map((issue) => issue.field)).toEqual([
        'query',
        'limit',
        'mode',
      ]);
      const broken = await call('/v1/memory/search', undefined, { key: READER, raw: '{"scope_id":' });
      expect(broken.status).toBe(400);
      expect(broken.json.error.code).toBe('malformed_request');
    });

    it('replays a write with the same Idempotency-Key, refuses it for another body, and writes concurrent duplicates once', async () => {
      const keyed = (key: string) => ({ key: BETA, headers: { 'Idempotency-Key': key } });
      const body = {
        scope_id: 'beta',
        entries: [{ text: 'beta retro is on Monday' }, { text: 'beta retro notes go to the wiki' }],
      };
      const before = await call<ChangesResponse>('/v1/memory/changes', { scope_id: 'beta' }, { key: BETA });
      const first = await call<RememberResponse>('/v1/memory/remember', body, keyed('contract-remember'));
      expect(first.status, first.text).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await call('/v1/memory/remember', body, keyed('contract-remember'));
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      const reused = await call(
        '/v1/memory/remember',
        { ...body, entries: [{ text: 'another body' }] },
        keyed('contract-remember'),
      );
      expect(reused.status).toBe(422);
      expect(reused.json.error).toMatchObject({ code: 'idempotency_key_reused', retryable: false });
      const badKey = await call('/v1/memory/remember', body, keyed('not a key'));
      expect(badKey.status).toBe(422);
      expect(badKey.json.error.details?.issues?.[0]?.field).toBe('Idempotency-Key');

      const entryId = first.json.entries[0]!.entry_id;
      const forget = { scope_id: 'beta', entry_id: entryId };
      const forgotten = await call<EntryWriteResponse>(
        '/v1/memory/entries/forget',
        forget,
        keyed('contract-forget'),
      );
      await call('/v1/memory/entries/reactivate', forget, { key: BETA });
      const forgottenAgain = await call<EntryWriteResponse>(
        '/v1/memory/entries/forget',
        forget,
        keyed('contract-forget'),
      );
      expect(forgottenAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(forgottenAgain.text).toBe(forgotten.text);

      // As many concurrent duplicates as the key's in-flight slots: one writes, the others replay it.
      const racing = await Promise.all(
        Array.from({ length: 4 }, () =>
          call(
            '/v1/memory/remember',
            { scope_id: 'beta', entries: [{ text: 'beta raced entry' }] },
            keyed('contract-race'),
          ),
        ),
      );
      expect(racing.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(racing.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(new Set(racing.map((answer) => answer.text)).size).toBe(1);

      // Four revisions: the remember, the forget, the reactivate and the raced remember.
      const after = await call<ChangesResponse>('/v1/memory/changes', { scope_id: 'beta' }, { key: BETA });
      expect((after.json.memory?.revision ?? 0) - (before.json.memory?.revision ?? 0)).toBe(4);
    });

    it('answers 413 for a body over the limit', async () => {
      const big = {
        scope_id: 'alpha',
        entries: [{ text: 'x'.repeat(30_000) }, { text: 'y'.repeat(30_000) }, { text: 'z'.repeat(30_000) }],
      };
      const response = await call('/v1/memory/remember', big, { key: ALL });
      expect(response.status).toBe(413);
      expect(response.json.error.code).toBe('payload_too_large');
    });

    it('rate-limits each key on its own with 429 and Retry-After, and lets it through again after that', async () => {
      const capabilities = () => call('/v1/capabilities', undefined, { key: THROTTLED });
      expect((await capabilities()).status).toBe(200);
      expect((await capabilities()).status).toBe(200);
      const limited = await capabilities();
      expect(limited.status).toBe(429);
      expect(limited.json.error).toMatchObject({ code: 'rate_limited', retryable: true });
      const wait = Number(limited.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      // Another key is not affected.
      expect((await call('/v1/capabilities', undefined, { key: READER })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      expect((await capabilities()).status).toBe(200);
    });
  });
}
