import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMcpHttp } from '../mcp/http.js';
import type { ErrorBody } from '../testing-support/http-call.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { ChangesResponse, ListEntriesResponse, PurgeResponse } from '../testing-support/wire-types.js';

// Issue 28: the tombstone's purged_by (the purging key's id) was shown to every reader of the scope.
// Now only a key that may purge there sees it; the others get the tombstone without the field.

const WRITER = secretOf('alpha-all'); // read, write, explain: no purge
const READER = secretOf('alpha-reader');
const PURGER = secretOf('alpha-purger'); // read, purge
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let runtime: Runtime;
let entryId = '';
let writtenAt = 0;

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  const { call } = createTestApp(runtime);
  const written = await runtime.memory
    .forScope('alpha')
    .remember({ entries: [{ text: 'the door code is 4412' }, { text: 'lunch at noon' }] });
  entryId = written.entries[0]!.entryId;
  writtenAt = written.memory.revision;
  const purged = await call<PurgeResponse>(
    '/v1/memory/entries/purge',
    { scope_id: 'alpha', entry_id: entryId },
    { key: PURGER },
  );
  // The purge's own answer goes to a key that may purge: it names it.
  expect(purged.status, purged.text).toBe(200);
  expect(purged.json.tombstone.purged_by).toBe('alpha-purger');
});

afterAll(async () => {
  await runtime.close();
});

/** Every `purge` object of an answer: the tombstones of list markers, changes and entry_purged errors. */
function purgeInfos(body: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        if (name === 'purge' && inner && typeof inner === 'object')
          found.push(inner as Record<string, unknown>);
        walk(inner);
      }
    }
  };
  walk(body);
  return found;
}

async function httpAnswers(key: string | undefined, local = false) {
  const { call } = local ? createTestApp(runtime, { auth: { kind: 'local' } }) : createTestApp(runtime);
  const options = local ? { headers: { host: '127.0.0.1:7474' } } : { key: key! };
  const target = { scope_id: 'alpha', entry_id: entryId };
  return {
    get: await call<ErrorBody>('/v1/memory/entries/get', target, options),
    list: await call<ListEntriesResponse>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', revision: writtenAt },
      options,
    ),
    changes: await call<ChangesResponse>('/v1/memory/changes', { scope_id: 'alpha' }, options),
  };
}

describe('purged_by over HTTP (issue 28)', () => {
  it.each([
    ['a reader', READER],
    ['a writer without the purge permission', WRITER],
  ])('is left out for %s: get (410), list markers and changes', async (_who, key) => {
    const { get, list, changes } = await httpAnswers(key);
    expect(get.status).toBe(410);
    expect(get.json.error).toMatchObject({ code: 'entry_purged', details: { entry_id: entryId } });
    expect(list.json.purged).toHaveLength(1);
    expect(changes.json.changes.filter((change) => 'purged' in change)).toHaveLength(2);
    const infos = [get, list, changes].flatMap((answer) => purgeInfos(answer.json));
    expect(infos).toHaveLength(4);
    for (const info of infos) {
      expect(Object.keys(info).sort()).toEqual(['purged_at', 'revision']);
    }
    for (const answer of [get, list, changes]) expect(answer.text).not.toContain('alpha-purger');
  });

  it('is left out of the 410 a writer gets from revise, forget and reactivate', async () => {
    const { call } = createTestApp(runtime);
    const target = { scope_id: 'alpha', entry_id: entryId };
    for (const [path, body] of [
      ['/v1/memory/entries/revise', { ...target, text: 'new words' }],
      ['/v1/memory/entries/forget', target],
      ['/v1/memory/entries/reactivate', target],
    ] as const) {
      const answer = await call(path, body, { key: WRITER });
      expect(answer.status, path).toBe(410);
      expect(answer.json.error.code).toBe('entry_purged');
      expect(answer.text, path).not.toContain('purged_by');
    }
  });

  it('is shown to a key with the purge permission, and on a keyless server', async () => {
    for (const answers of [await httpAnswers(PURGER), await httpAnswers(undefined, true)]) {
      const infos = [answers.get, answers.list, answers.changes].flatMap((answer) => purgeInfos(answer.json));
      expect(infos).toHaveLength(4);
      for (const info of infos) expect(info.purged_by).toBe('alpha-purger');
    }
  });
});

describe('purged_by over MCP (issue 28)', () => {
  const tool = async (key: string, name: string, args: Record<string, unknown>) => {
    const { call } = createTestApp(runtime, { mcp: handleMcpHttp });
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
    const answer = await call<{ result: { isError?: boolean; content: { text: string }[] } }>(
      '/mcp',
      message,
      { key, headers: MCP_HEADERS },
    );
    expect(answer.status, answer.text).toBe(200);
    return {
      isError: answer.json.result.isError === true,
      body: JSON.parse(answer.json.result.content[0]!.text),
    };
  };
  const answers = async (key: string) => [
    await tool(key, 'get_memory_entry', { scope_id: 'alpha', entry_id: entryId }),
    await tool(key, 'list_memory_entries', { scope_id: 'alpha', revision: writtenAt }),
    await tool(key, 'list_memory_changes', { scope_id: 'alpha' }),
  ];

  it('is left out for a key without the purge permission, and shown to one with it', async () => {
    const hidden = await answers(READER);
    expect(hidden[0]!.isError).toBe(true);
    expect(hidden[0]!.body.error.code).toBe('entry_purged');
    const hiddenInfos = hidden.flatMap((answer) => purgeInfos(answer.body));
    expect(hiddenInfos).toHaveLength(4);
    for (const info of hiddenInfos) expect(info).not.toHaveProperty('purged_by');

    const shown = (await answers(PURGER)).flatMap((answer) => purgeInfos(answer.body));
    expect(shown).toHaveLength(4);
    for (const info of shown) expect(info.purged_by).toBe('alpha-purger');
  });
});
