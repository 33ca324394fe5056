import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL } from '../auth/principal.js';
import { callError, callFailing, callOk } from './mcp-test-client.test.helper.js';
import { createMemoryMcpServer } from './memory-tools.js';
import { entryWriteOutput, listOutput, rememberOutput, searchOutput } from './tool-schemas.js';

// RFC 0014 through the MCP tools, on a runtime over a real PGlite data directory.
const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-steering-'));
let runtime: Runtime;
let client: Client;

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
  const server = createMemoryMcpServer({ runtime, principal: LOCAL_PRINCIPAL });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'steering-test', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
});
afterAll(async () => {
  await client?.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the MCP tools steer a search (RFC 0014)', () => {
  it('remember, revise, search and list take the entry fields and the filter', async () => {
    const written = await callOk(
      client,
      'remember_memory',
      {
        scope_id: 'mcp-steer',
        entries: [
          {
            text: 'The deploy window is Tuesday morning.',
            tags: ['Release'],
            occurred_at: '2026-03-01T09:00:00Z',
          },
          { text: 'The deploy pipeline runs the smoke tests.', tags: ['ci'] },
        ],
      },
      rememberOutput,
    );
    const search = await callOk(
      client,
      'search_memory',
      { scope_id: 'mcp-steer', query: 'deploy', filter: { tags_any: ['RELEASE'] } },
      searchOutput,
    );
    expect(search.hits).toHaveLength(1);
    expect(search.hits[0]).toMatchObject({
      tags: ['release'],
      pinned: false,
      occurred_at: '2026-03-01T09:00:00.000Z',
    });

    const revised = await callOk(
      client,
      'revise_memory_entry',
      {
        scope_id: 'mcp-steer',
        entry_id: written.entries[1]!.entry_id,
        text: 'The deploy pipeline runs the smoke tests.',
        pinned: true,
      },
      entryWriteOutput,
    );
    expect(revised.status).toBe('created');
    const pinned = await callOk(
      client,
      'list_memory_entries',
      { scope_id: 'mcp-steer', filter: { pinned: true }, order: 'oldest' },
      listOutput,
    );
    expect(pinned.total).toBe(1);
    expect(pinned.entries[0]).toMatchObject({ tags: ['ci'], pinned: true, version: 2 });
    const byText = await callOk(
      client,
      'list_memory_entries',
      { scope_id: 'mcp-steer', text: 'SMOKE tests' },
      listOutput,
    );
    expect(byText.total).toBe(1);
    expect(byText.entries.map((entry) => entry.text)).toEqual(['The deploy pipeline runs the smoke tests.']);
    expect(await callFailing(client, 'list_memory_entries', { scope_id: 'mcp-steer', text: '' })).toContain(
      'text',
    );
    expect(
      await callError(client, 'list_memory_entries', { scope_id: 'mcp-steer', text: 'a\u0000b' }),
    ).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ field: 'text', rule: 'text must not contain NUL (U+0000)' }] },
    });

    const error = await callError(client, 'search_memory', {
      scope_id: 'mcp-steer',
      query: 'deploy',
      filter: { colour: 'red' },
    });
    expect(error.code).toBe('invalid_request');
    expect(JSON.stringify(error)).toContain('filter');
  });
});
