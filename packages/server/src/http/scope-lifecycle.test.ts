import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../cli/export-command.js';
import { runMemoryCommand } from '../cli/memory-command.js';
import { handleMcpHttp } from '../mcp/http.js';
import type { ErrorBody } from '../testing-support/http-call.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';

// RFC 0015: POST /v1/scopes/delete (purge permission), GET /v1/memory/export (read permission, JSON
// Lines in the import format), MCP delete_scope, and the CLI's export / import / delete-scope.

const WRITER = secretOf('alpha-all'); // read, write, explain: no purge
const READER = secretOf('alpha-reader');
const PURGER = secretOf('alpha-purger');
const BETA = secretOf('beta-all'); // everything on beta
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const dir = mkdtempSync(join(tmpdir(), 'pc-scope-lifecycle-'));

const ENTRIES = [
  { text: 'the door code is 4412', kind: 'fact', metadata: { room: 'B2', tags: ['ops'] } },
  { text: 'lunch at noon', sources: [{ source_id: 'chat-1', locator: 'L3' }] },
  { text: 'ship on friday', position: { source_id: 'plan', order: [1, 2] } },
];

let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

async function exportText(key: string, query: string) {
  const { app } = createTestApp(runtime);
  return app.request(`/v1/memory/export?${query}`, { headers: { authorization: `Bearer ${key}` } });
}

describe('GET /v1/memory/export', () => {
  it('streams the active entries as JSON Lines in the import format, with the revision read', async () => {
    const { call } = createTestApp(runtime);
    const written = await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: ENTRIES },
      { key: WRITER },
    );
    expect(written.status, written.text).toBe(200);
    const response = await exportText(READER, 'scope_id=alpha');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    expect(response.headers.get('memory-revision')).toBe('1');
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    expect(lines).toContainEqual({ ...ENTRIES[0], sources: [] });
    expect(lines).toContainEqual({ ...ENTRIES[1], kind: 'note', metadata: {} });
    expect(lines).toContainEqual({ ...ENTRIES[2], kind: 'note', sources: [], metadata: {} });
  });

  it('answers 422 naming the field for a bad revision or scope, 404 past the head, 403 for another scope', async () => {
    for (const query of [
      'scope_id=alpha&revision=0',
      'scope_id=alpha&revision=x',
      'revision=1',
      'scope_id=',
    ]) {
      const response = await exportText(READER, query);
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details?.issues?.[0]?.field).toMatch(/revision|scope_id/u);
    }
    expect((await exportText(READER, 'scope_id=alpha&revision=99')).status).toBe(404);
    expect((await exportText(READER, 'scope_id=beta')).status).toBe(403);
  });
});

describe('the export path from the command line', () => {
  it('exports, imports into a new scope and exports the same lines; stdout holds only the lines', async () => {
    const file = join(dir, 'alpha.jsonl');
    const chunks: string[] = [];
    const out = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    const summary = await runExport(runtime, { scope: 'alpha' }, out);
    expect(summary.json).toEqual({ scope_id: 'alpha', revision: 1, entries: 3 });
    writeFileSync(file, chunks.join(''));
    expect(await runMemoryCommand(['import', '--scope', 'alpha-copy', file], { runtime })).toBe(0);
    const again: string[] = [];
    await runExport(
      runtime,
      { scope: 'alpha-copy' },
      new Writable({
        write(chunk, _encoding, done) {
          again.push(String(chunk));
          done();
        },
      }),
    );
    expect(again.join('')).toBe(readFileSync(file, 'utf8'));
  });

  it('refuses delete-scope without --yes (exit 2) and deletes with it', async () => {
    await runtime.memory.forScope('cli-doomed').remember({ entries: [{ text: 'temporary' }] });
    expect(await runMemoryCommand(['delete-scope', '--scope', 'cli-doomed'], { runtime })).toBe(2);
    expect((await runtime.memory.forScope('cli-doomed').list()).entries).toHaveLength(1);
    expect(await runMemoryCommand(['delete-scope', '--scope', 'cli-doomed', '--yes'], { runtime })).toBe(0);
    await expect(runtime.memory.forScope('cli-doomed').list()).rejects.toMatchObject({
      code: 'scope_purged',
    });
    expect(await runMemoryCommand(['list', '--scope', 'cli-doomed'], { runtime })).toBe(1);
  });
});

describe('POST /v1/scopes/delete', () => {
  it('needs the purge permission: 403 for a key that may read and write, nothing deleted', async () => {
    const { call } = createTestApp(runtime);
    const refused = await call<ErrorBody>('/v1/scopes/delete', { scope_id: 'alpha' }, { key: WRITER });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('permission_forbidden');
    const other = await call<ErrorBody>('/v1/scopes/delete', { scope_id: 'beta' }, { key: PURGER });
    expect(other.json.error.code).toBe('scope_forbidden');
    expect((await runtime.memory.forScope('alpha').list()).entries).toHaveLength(3);
  });

  it('answers 422 for a bad body, 404 for a scope never written', async () => {
    const { call } = createTestApp(runtime);
    for (const body of [{}, { scope_id: '' }, { scope_id: 'alpha', extra: 1 }]) {
      const answer = await call<ErrorBody>('/v1/scopes/delete', body, { key: PURGER });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.json.error.code).toBe('invalid_request');
    }
    const never = await call<ErrorBody>('/v1/scopes/delete', { scope_id: 'beta' }, { key: BETA });
    expect(never.status).toBe(404);
  });

  it('deletes the scope; then its reads answer 410 scope_purged, deleted_by only for a purger', async () => {
    const { call } = createTestApp(runtime);
    const deleted = await call<{ status: string; tombstone: Record<string, unknown> }>(
      '/v1/scopes/delete',
      { scope_id: 'alpha' },
      { key: PURGER },
    );
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toMatchObject({
      status: 'deleted',
      tombstone: { scope_id: 'alpha', revision: 1, entries: 3, deleted_by: 'alpha-purger' },
    });
    const search = await call<ErrorBody>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'door' },
      { key: READER },
    );
    expect(search.status).toBe(410);
    expect(search.json.error.code).toBe('scope_purged');
    expect(search.json.error.details).toMatchObject({ scope: { scope_id: 'alpha', revision: 1 } });
    expect(search.json.error.details?.scope).not.toHaveProperty('deleted_by');
    const pinned = await call<ErrorBody>(
      '/v1/memory/entries/list',
      { scope_id: 'alpha', revision: 1, min_revision: 1 },
      { key: PURGER },
    );
    expect(pinned.status).toBe(410);
    expect(pinned.json.error.details?.scope).toMatchObject({ deleted_by: 'alpha-purger' });
    const write = await call<ErrorBody>(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: [{ text: 'x' }] },
      {
        key: WRITER,
      },
    );
    expect(write.status).toBe(410);
    expect((await exportText(READER, 'scope_id=alpha')).status).toBe(410);
    const again = await call<{ status: string }>('/v1/scopes/delete', { scope_id: 'alpha' }, { key: PURGER });
    expect(again.json.status).toBe('unchanged');
  });
});

describe('MCP delete_scope', () => {
  const tool = async (key: string, args: Record<string, unknown>) => {
    const { call } = createTestApp(runtime, { mcp: handleMcpHttp });
    const message = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'delete_scope', arguments: args },
    };
    const answer = await call<{ result: { isError?: boolean; content: { text: string }[] } }>(
      '/mcp',
      message,
      {
        key,
        headers: MCP_HEADERS,
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return {
      isError: answer.json.result.isError === true,
      body: JSON.parse(answer.json.result.content[0]!.text),
    };
  };

  it('needs the purge permission, checks its input, and deletes', async () => {
    await runtime.memory.forScope('beta').remember({ entries: [{ text: 'beta note' }] });
    const refused = await tool(READER, { scope_id: 'beta' });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe('scope_forbidden');
    const invalid = await tool(BETA, { scope_id: 'beta', extra: 1 });
    expect(invalid.isError).toBe(true);
    expect(invalid.body.error.code).toBe('invalid_request');
    const done = await tool(BETA, { scope_id: 'beta' });
    expect(done.isError).toBe(false);
    expect(done.body).toMatchObject({ status: 'deleted', tombstone: { scope_id: 'beta', entries: 1 } });
    await expect(runtime.memory.forScope('beta').search({ query: 'beta' })).rejects.toMatchObject({
      code: 'scope_purged',
    });
  });
});
