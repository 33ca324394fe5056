import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MODEL_CALLABLE_TOOLS } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { callError, callOk } from './mcp-test-client.test.helper.js';
import { listOutput, rememberOutput, searchOutput } from './tool-schemas.js';

// The built command line; `pnpm test` builds it first.
const BIN = fileURLToPath(new URL('../../dist/bin/powercontext.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-stdio-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function transport(env: Record<string, string>, args: string[] = []): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
}

describe('powercontext mcp (stdio)', () => {
  it('is built', () => {
    expect(existsSync(BIN)).toBe(true);
  });

  // Two server processes start one after the other: generous time on a loaded machine.
  it('serves the memory tools to the SDK client and exits 0 when the client closes', {
    timeout: 120_000,
  }, async () => {
    const stdio = transport({ POWERCONTEXT_SERVER_DATA_DIR: dataDir });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(stdio);
    const pid = stdio.pid;
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(MODEL_CALLABLE_TOOLS.length);
    const remembered = await callOk(
      client,
      'remember_memory',
      { scope_id: 'stdio', entries: [{ text: 'Backups are tested on the first Monday of the month.' }] },
      rememberOutput,
    );
    const found = await callOk(
      client,
      'search_memory',
      { scope_id: 'stdio', query: 'backups tested' },
      searchOutput,
    );
    expect(found.hits[0]?.citation.entry_id).toBe(remembered.entries[0]!.entry_id);
    expect(await callError(client, 'get_memory_entry', { scope_id: 'stdio', entry_id: 'x' })).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ field: 'entry_id' }] },
    });
    await client.close();
    // The process released the data directory: a second server opens it and sees the entry.
    expect(pid).toBeDefined();
    expect(() => process.kill(pid!, 0)).toThrow();
    const again = new Client({ name: 'stdio-test-2', version: '1.0.0' });
    await again.connect(transport({}, ['--data-dir', dataDir]));
    const listed = await callOk(again, 'list_memory_entries', { scope_id: 'stdio' }, listOutput);
    expect(listed.entries.map((entry) => entry.text)).toEqual([
      'Backups are tested on the first Monday of the month.',
    ]);
    await again.close();
  });

  it('searches several scopes with scope_ids over stdio, each hit naming its scope', {
    timeout: 120_000,
  }, async () => {
    const client = new Client({ name: 'stdio-scopes', version: '1.0.0' });
    await client.connect(transport({ POWERCONTEXT_SERVER_DATA_DIR: dataDir }));
    for (const [scope, text] of [
      ['stdio-user', 'The user restarts the router on Sundays.'],
      ['stdio-project', 'The project router config lives in ops.'],
    ]) {
      await callOk(client, 'remember_memory', { scope_id: scope, entries: [{ text }] }, rememberOutput);
    }
    const found = await callOk(
      client,
      'search_memory',
      { scope_ids: ['stdio-user', 'stdio-project'], query: 'router', mode: 'fts' },
      searchOutput,
    );
    expect(found.memory).toBeNull();
    expect(found.scopes?.map((scope) => scope.scope_id)).toEqual(['stdio-user', 'stdio-project']);
    expect(found.hits.map((hit) => hit.scope_id).sort()).toEqual(['stdio-project', 'stdio-user']);
    for (const hit of found.hits) expect(hit.citation.memory_ref.scope_id).toBe(hit.scope_id);
    expect(
      await callError(client, 'search_memory', {
        scope_id: 'stdio-user',
        scope_ids: ['stdio-user'],
        query: 'x',
      }),
    ).toMatchObject({
      code: 'invalid_request',
      details: {
        issues: [{ field: 'scope_ids', rule: 'exactly one of scope_id and scope_ids is required' }],
      },
    });
    await client.close();
  });

  it('answers on stdout only and exits 0 when stdin ends', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', dataDir], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) child.stdin.end();
    });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'powercontext-memory' } },
    });
  });

  it('exits non-zero with the setting and the rule on invalid configuration', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', POWERCONTEXT_SERVER_DATABASE_URL: 'mysql://nope' },
      input: '',
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'configuration_error: POWERCONTEXT_SERVER_DATABASE_URL: must be a postgres:// or postgresql:// URL',
    );
    const badFlag = spawnSync(process.execPath, [BIN, 'mcp', '--port', '1'], { encoding: 'utf8', input: '' });
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toContain('unknown flag --port');
  });
});
