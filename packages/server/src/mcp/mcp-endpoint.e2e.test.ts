import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MODEL_CALLABLE_TOOLS } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../testing-support/server-process.js';
import { secretOf, writeTestKeysFile } from '../testing-support/test-keys.js';
import { callError, callOk } from './mcp-test-client.test.helper.js';
import { listOutput, rememberOutput, searchOutput } from './tool-schemas.js';

// The SDK's own client against `powercontext server run`: /mcp behind the API keys of the server.
const dir = mkdtempSync(join(tmpdir(), 'pc-mcp-e2e-'));
let server: ServerProcess;

beforeAll(async () => {
  const keysFile = writeTestKeysFile(dir);
  server = await startServerProcess({
    args: ['--data-dir', join(dir, 'data'), '--api-keys-file', keysFile],
    timeoutMs: 60_000,
  });
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

async function connect(keyId?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const headers: Record<string, string> = keyId ? { authorization: `Bearer ${secretOf(keyId)}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

describe('MCP at /mcp of the running server', () => {
  it('serves the memory tools to a key, within its scopes and permissions', async () => {
    const writer = await connect('alpha-all');
    const reader = await connect('alpha-reader');
    try {
      expect((await writer.listTools()).tools).toHaveLength(MODEL_CALLABLE_TOOLS.length);
      const remembered = await callOk(
        writer,
        'remember_memory',
        { scope_id: 'alpha', entries: [{ text: 'Status reports are due before the Wednesday sync.' }] },
        rememberOutput,
      );
      const found = await callOk(
        reader,
        'search_memory',
        { scope_id: 'alpha', query: 'when are status reports due' },
        searchOutput,
      );
      expect(found.hits[0]?.citation.entry_id).toBe(remembered.entries[0]!.entry_id);
      const prepared = (await reader.callTool({
        name: 'prepare_context',
        arguments: {
          scope_id: 'alpha',
          query: 'when are status reports due',
          contract: { token_budget: 300 },
        },
      })) as CallToolResult;
      expect(prepared.isError).toBeFalsy();
      expect(prepared.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringContaining('Status reports are due before the Wednesday sync.'),
      });
      expect(prepared.structuredContent).toMatchObject({
        selected: [{ citation: { entry_id: remembered.entries[0]!.entry_id } }],
        contract: { token_budget: 300 },
      });
      expect(
        await callError(reader, 'forget_memory_entry', {
          scope_id: 'alpha',
          entry_id: remembered.entries[0]!.entry_id,
        }),
      ).toMatchObject({ code: 'permission_forbidden', retryable: false });
      expect(await callError(writer, 'list_memory_entries', { scope_id: 'beta' })).toMatchObject({
        code: 'scope_forbidden',
      });
      // The reader's refused forget changed nothing.
      const listed = await callOk(reader, 'list_memory_entries', { scope_id: 'alpha' }, listOutput);
      expect(listed.entries.map((entry) => entry.state)).toEqual(['active']);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('refuses a client without a valid key before any tool runs', async () => {
    await expect(connect()).rejects.toThrow(/401|unauthenticated/i);
    await expect(connect('no-such-key')).rejects.toThrow(/401|unauthenticated/i);
  });
});
