import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PowerContextApiError } from './api-error.js';
import { createPowerContextClient } from './client.js';
import { type RunningServer, startReferenceServer } from './testing-support/reference-server.js';

// End to end: the client against the real reference server (`powercontext server run`) on a temp
// PGlite directory and a free port, with an API keys file.
const dir = mkdtempSync(join(tmpdir(), 'pc-client-e2e-'));
const KEYS = {
  writer: { scopes: ['client-a', 'client-p'], permissions: ['read', 'write', 'explain'] },
  purger: { scopes: ['client-p'], permissions: ['purge'] },
  reader: { scopes: ['client-a'], permissions: ['read'] },
  limited: { scopes: ['client-a'], permissions: ['read'], rate_limit: { requests: 1, window_seconds: 3600 } },
};
let server: RunningServer;

beforeAll(async () => {
  const keysFile = join(dir, 'keys.json');
  const keys = Object.entries(KEYS).map(([id, key]) => ({
    id,
    sha256: createHash('sha256').update(`secret-${id}`).digest('hex'),
    ...key,
  }));
  writeFileSync(keysFile, JSON.stringify({ keys }));
  server = await startReferenceServer(['--data-dir', join(dir, 'data'), '--api-keys-file', keysFile], {});
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

const clientFor = (key?: keyof typeof KEYS | 'unknown') =>
  createPowerContextClient({ baseUrl: server.url, ...(key ? { apiKey: `secret-${key}` } : {}) });

async function failure(promise: Promise<unknown>): Promise<PowerContextApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!PowerContextApiError.isInstance(error))
    throw new Error(`expected a PowerContextApiError, got ${String(error)}`);
  return error;
}

describe('@powercontext/client against the reference server', () => {
  it('reads health, readiness and capabilities', async () => {
    const client = clientFor('reader');
    expect(await client.health()).toEqual({ status: 'ok' });
    expect(await client.ready()).toEqual({
      status: 'ready',
      database: { reachable: true, migrations_current: true },
      replicas: [],
    });
    const capabilities = await client.capabilities();
    expect(capabilities).toMatchObject({
      api_version: 'v1',
      search_modes: ['auto', 'fts', 'vector', 'hybrid'],
      embedding_profile: { id: 'powercontext.local-hash.v2@1024', dimension: 1024 },
      rerank: null,
    });
  });

  it('remembers, searches, lists, gets, revises, forgets and reactivates', async () => {
    const client = clientFor('writer');
    const remembered = await client.remember({
      scope_id: 'client-a',
      entries: [
        {
          text: 'The on-call rotation changes every Monday at nine.',
          sources: [{ source_id: 'wiki', locator: 'oncall' }],
        },
        {
          text: 'Coffee beans are ordered from the roastery on Thursdays.',
          kind: 'fact',
          metadata: { team: 'office' },
        },
      ],
    });
    expect(remembered.entries.map((entry) => entry.status)).toEqual(['created', 'created']);
    const [rotation, coffee] = remembered.entries;

    for (const mode of ['auto', 'fts', 'vector', 'hybrid'] as const) {
      const found = await client.search({
        scope_id: 'client-a',
        query: 'when does on-call rotation change',
        mode,
        limit: 5,
      });
      expect(found.hits[0]?.citation, mode).toEqual({
        memory_ref: remembered.memory,
        entry_id: rotation!.entry_id,
        entry_version_id: rotation!.entry_version_id,
      });
      expect(found).not.toHaveProperty('explain');
    }
    const explained = await client.search({
      scope_id: 'client-a',
      query: 'coffee roastery',
      mode: 'fts',
      explain: 'redacted',
    });
    expect(explained.explain?.hits[0]).toMatchObject({
      coarse_rank: 1,
      channel_ranks: { fts: 1 },
      reranker_selected: null,
    });

    const prepared = await client.prepareContext({
      scope_id: 'client-a',
      query: 'on-call rotation',
      mode: 'fts',
      contract: { token_budget: 500, max_chunks: 1 },
    });
    expect(prepared.selected.map((chunk) => chunk.citation)).toEqual([
      {
        memory_ref: remembered.memory,
        entry_id: rotation!.entry_id,
        entry_version_id: rotation!.entry_version_id,
      },
    ]);
    expect(prepared.selected[0]!.source).toBe('wiki');
    expect(prepared.context).toContain('The on-call rotation changes every Monday at nine.');
    expect(prepared.total_tokens).toBeLessThanOrEqual(500);
    expect(prepared.contract).toMatchObject({ token_budget: 500, max_chunks: 1, tokenizer: 'o200k_base' });

    const listed = await client.listEntries({ scope_id: 'client-a', limit: 1 });
    expect(listed.entries).toHaveLength(1);
    const rest = await client.listEntries({ scope_id: 'client-a', cursor: listed.next_cursor! });
    expect([...listed.entries, ...rest.entries].map((entry) => entry.entry_id).sort()).toEqual(
      [rotation!.entry_id, coffee!.entry_id].sort(),
    );
    // The list's text filter (RFC 0014, "List"): a case-insensitive substring, counted by total.
    const roastery = await client.listEntries({ scope_id: 'client-a', text: 'ROASTERY', order: 'newest' });
    expect(roastery.total).toBe(1);
    expect(roastery.entries.map((entry) => entry.entry_id)).toEqual([coffee!.entry_id]);

    const got = await client.getEntry({ scope_id: 'client-a', entry_id: coffee!.entry_id });
    expect(got.entry).toMatchObject({
      kind: 'fact',
      metadata: { team: 'office' },
      state: 'active',
      version: 1,
    });

    const revised = await client.reviseEntry({
      scope_id: 'client-a',
      entry_id: coffee!.entry_id,
      text: 'Coffee beans are ordered from the roastery on Fridays.',
    });
    expect(revised).toMatchObject({ status: 'created', entry_id: coffee!.entry_id, memory: { revision: 2 } });

    const forgotten = await client.forgetEntry({ scope_id: 'client-a', entry_id: coffee!.entry_id });
    expect(forgotten).toMatchObject({ status: 'created', memory: { revision: 3 } });
    const afterForget = await client.search({
      scope_id: 'client-a',
      query: 'coffee beans roastery',
      mode: 'hybrid',
    });
    expect(afterForget.hits.map((hit) => hit.citation.entry_id)).not.toContain(coffee!.entry_id);

    const reactivated = await client.reactivateEntry({ scope_id: 'client-a', entry_id: coffee!.entry_id });
    expect(reactivated).toMatchObject({ status: 'created', memory: { revision: 4 } });
    const changes = await client.changes({ scope_id: 'client-a', from_revision: 1 });
    expect(changes.changes.map((change) => change.operation)).toEqual(['revise', 'forget', 'reactivate']);
  });

  it('maps 401, 403, 404, 422 and 429 onto PowerContextApiError', async () => {
    const noKey = await failure(clientFor().capabilities());
    expect(noKey).toMatchObject({ code: 'unauthenticated', status: 401, retryable: false });
    expect(await failure(clientFor('unknown').search({ scope_id: 'client-a', query: 'x' }))).toMatchObject({
      code: 'unauthenticated',
      status: 401,
    });

    const reader = clientFor('reader');
    expect(await failure(reader.search({ scope_id: 'client-b', query: 'x' }))).toMatchObject({
      code: 'scope_forbidden',
      status: 403,
      retryable: false,
    });
    expect(await failure(reader.remember({ scope_id: 'client-a', entries: [{ text: 'x' }] }))).toMatchObject({
      code: 'permission_forbidden',
      status: 403,
    });
    expect(
      await failure(reader.search({ scope_id: 'client-a', query: 'x', explain: 'redacted' })),
    ).toMatchObject({
      code: 'permission_forbidden',
      status: 403,
    });

    const missing = await failure(
      reader.getEntry({ scope_id: 'client-a', entry_id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(missing).toMatchObject({ code: 'not_found', status: 404, retryable: false });
    expect(missing.requestId).toMatch(/^[A-Za-z0-9._:-]+$/);

    const invalid = await failure(reader.search({ scope_id: 'client-a', query: 'x', limit: 51 }));
    expect(invalid).toMatchObject({ code: 'invalid_request', status: 422, retryable: false });
    expect(invalid.details?.issues).toEqual([{ field: 'limit', rule: 'limit must be at most 50' }]);
    const tooSmall = await failure(
      reader.prepareContext({ scope_id: 'client-a', query: 'x', contract: { token_budget: 5 } }),
    );
    expect(tooSmall).toMatchObject({ code: 'invalid_request', status: 422 });
    expect(tooSmall.details?.issues?.map((issue) => issue.field)).toEqual(['contract.token_budget']);

    const limited = clientFor('limited');
    await limited.capabilities();
    const throttled = await failure(limited.capabilities());
    expect(throttled).toMatchObject({ code: 'rate_limited', status: 429, retryable: true });
    expect(throttled.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('repeats a write with its idempotency key: the first answer back, nothing written twice', async () => {
    const writer = clientFor('writer');
    const before = (await writer.changes({ scope_id: 'client-a' })).memory?.revision ?? 0;
    const request = { scope_id: 'client-a', entries: [{ text: 'Written exactly once' }] };
    const first = await writer.remember(request, { idempotencyKey: 'client-key-1' });
    expect(await writer.remember(request, { idempotencyKey: 'client-key-1' })).toEqual(first);
    const reused = await failure(
      writer.remember(
        { ...request, entries: [{ text: 'Another body' }] },
        { idempotencyKey: 'client-key-1' },
      ),
    );
    expect(reused).toMatchObject({ code: 'idempotency_key_reused', status: 422, retryable: false });
    const badKey = await failure(writer.remember(request, { idempotencyKey: 'not a key' }));
    expect(badKey).toMatchObject({ code: 'invalid_request', status: 422 });
    expect(badKey.details?.issues?.[0]?.field).toBe('Idempotency-Key');
    const target = { scope_id: 'client-a', entry_id: first.entries[0]!.entry_id };
    const forgotten = await writer.forgetEntry(target, { idempotencyKey: 'client-key-2' });
    await writer.reactivateEntry(target);
    expect(await writer.forgetEntry(target, { idempotencyKey: 'client-key-2' })).toEqual(forgotten);
    expect((await writer.changes({ scope_id: 'client-a' })).memory?.revision).toBe(before + 3);
  });

  it('purges with the purge permission only; the entry then answers entry_purged (410)', async () => {
    const writer = clientFor('writer');
    const written = await writer.remember({
      scope_id: 'client-p',
      entries: [{ text: 'The vault combination is 31-17-5.' }, { text: 'The lobby opens at eight.' }],
    });
    const entryId = written.entries[0]!.entry_id;
    const target = { scope_id: 'client-p', entry_id: entryId };
    expect(await failure(writer.purgeEntry(target))).toMatchObject({
      code: 'permission_forbidden',
      status: 403,
    });
    const purged = await clientFor('purger').purgeEntry(target);
    expect(purged).toMatchObject({
      status: 'purged',
      memory: { revision: 2 },
      tombstone: { entry_id: entryId, version: 2, revision: 2, purged_by: 'purger' },
    });
    const gone = await failure(writer.getEntry({ ...target, revision: 1 }));
    expect(gone).toMatchObject({
      code: 'entry_purged',
      status: 410,
      retryable: false,
      details: { entry_id: entryId, purge: { revision: 2 } },
    });
    // Who purged is for keys that may purge (issue 28); the writer lacks the permission.
    expect(JSON.stringify(gone.details)).not.toContain('purged_by');
    const changes = await writer.changes({ scope_id: 'client-p' });
    expect(changes.changes.filter((change) => 'purged' in change)).toMatchObject([
      { revision: 1, operation: 'remember', purged: true, entry_id: entryId },
      { revision: 2, operation: 'purge', purged: true, entry_id: entryId },
    ]);
    const atOne = await writer.listEntries({ scope_id: 'client-p', revision: 1 });
    expect(atOne.purged).toMatchObject([{ entry_id: entryId, purged: true }]);
    expect(JSON.stringify([changes, atOne])).not.toContain('vault');
    expect(await clientFor('purger').purgeEntry(target)).toMatchObject({ status: 'unchanged' });
  });

  it('exports a scope as a stream of entries, then deletes it (purge permission): 410 scope_purged', async () => {
    const writer = clientFor('writer');
    await writer.remember({
      scope_id: 'client-p',
      entries: [{ text: 'Exported with its kind', kind: 'fact', metadata: { n: 1 } }],
    });
    const exported = [];
    for await (const entry of writer.exportEntries({ scope_id: 'client-p' })) exported.push(entry);
    expect(exported).toContainEqual({
      text: 'Exported with its kind',
      kind: 'fact',
      sources: [],
      metadata: { n: 1 },
    });
    expect(exported.map((entry) => entry.text)).not.toContain('The vault combination is 31-17-5.');
    expect(await failure(writer.deleteScope({ scope_id: 'client-p' }))).toMatchObject({ status: 403 });
    const deleted = await clientFor('purger').deleteScope({ scope_id: 'client-p' });
    expect(deleted).toMatchObject({
      status: 'deleted',
      tombstone: { scope_id: 'client-p', deleted_by: 'purger' },
    });
    const gone = await failure(writer.exportEntries({ scope_id: 'client-p' }).next());
    expect(gone).toMatchObject({
      code: 'scope_purged',
      status: 410,
      details: { scope: { scope_id: 'client-p' } },
    });
  });

  it('reports a server that is not there as network_error', async () => {
    const gone = createPowerContextClient({ baseUrl: 'http://127.0.0.1:9' });
    expect(await failure(gone.health())).toMatchObject({ code: 'network_error', status: 0, retryable: true });
  });
});

describe('@powercontext/client: 409 from the reference server', () => {
  // An embedding model that cannot be reached: entries are stored without vectors, so the scope's
  // vector index stays incomplete and an explicit vector search is refused with 409.
  const conflictDir = mkdtempSync(join(tmpdir(), 'pc-client-409-'));
  let incomplete: RunningServer;

  beforeAll(async () => {
    incomplete = await startReferenceServer(['--data-dir', conflictDir], {
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MODEL: 'openai-compatible:unreachable-embedder',
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_DIMENSION: '8',
      POWERCONTEXT_SERVER_INFERENCE_EMBEDDING_MAX_REQUESTS: '1',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:9/v1',
    });
  });

  afterAll(async () => {
    expect(await incomplete?.stop()).toBe(0);
    rmSync(conflictDir, { recursive: true, force: true });
  });

  it('maps capability_unavailable (explicit vector search without a complete vector index)', async () => {
    const client = createPowerContextClient({ baseUrl: incomplete.url });
    await client.remember({ scope_id: 'no-vectors', entries: [{ text: 'stored without a vector' }] });
    const error = await failure(client.search({ scope_id: 'no-vectors', query: 'stored', mode: 'vector' }));
    expect(error).toMatchObject({ code: 'capability_unavailable', status: 409, retryable: false });
    // Full text still answers.
    const found = await client.search({ scope_id: 'no-vectors', query: 'stored', mode: 'fts' });
    expect(found.hits).toHaveLength(1);
  });
});
