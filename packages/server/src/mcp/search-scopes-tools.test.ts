import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { callError, callOk } from './mcp-test-client.test.helper.js';
import { createMemoryMcpServer } from './memory-tools.js';
import { prepareContextOutput, searchOutput } from './tool-schemas.js';

/** Issue 29: prepare_context and the access rule of scope_ids, through the MCP SDK client. */
let runtime: Runtime;
const clients: Client[] = [];

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  await runtime.memory.forScope('alpha').remember({ entries: [{ text: 'Alpha deploys on Fridays.' }] });
  await runtime.memory.forScope('beta').remember({ entries: [{ text: 'Beta deploys every morning.' }] });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await runtime.close();
});

async function connect(scopes: string[]): Promise<Client> {
  const principal: Principal = { keyId: 'k', scopes, permissions: new Set(['read']) };
  const server = createMemoryMcpServer({ runtime, principal });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'scopes-test', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
  clients.push(client);
  return client;
}

describe('MCP tools over several scopes (issue 29)', () => {
  it('prepare_context packs evidence from every scope, each chunk citing its own', async () => {
    const client = await connect(['alpha', 'beta']);
    const result = (await client.callTool({
      name: 'prepare_context',
      arguments: { scope_ids: ['alpha', 'beta'], query: 'deploys', mode: 'fts', min_revisions: { beta: 1 } },
    })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const report = prepareContextOutput.parse(result.structuredContent);
    expect(report.scopes?.map((scope) => scope.scope_id)).toEqual(['alpha', 'beta']);
    expect(new Set(report.selected.map((chunk) => chunk.citation.memory_ref.scope_id))).toEqual(
      new Set(['alpha', 'beta']),
    );
  });

  it('refuses a key that may not read every scope, naming the first, on both tools', async () => {
    const client = await connect(['alpha']);
    for (const name of ['search_memory', 'prepare_context']) {
      expect(
        await callError(client, name, { scope_ids: ['alpha', 'beta', 'gamma'], query: 'deploys' }),
      ).toMatchObject({
        code: 'scope_forbidden',
        message: 'This API key may not use scope "beta"',
      });
    }
    expect(
      await callError(client, 'search_memory', {
        scope_ids: ['alpha'],
        query: 'x',
        min_revisions: { beta: 1 },
      }),
    ).toMatchObject({
      code: 'invalid_request',
      details: {
        issues: [
          { field: 'min_revisions.beta', rule: 'min_revisions keys must be scopes named in scope_ids' },
        ],
      },
    });
    // A list of one scope the key may read is a search of that scope, which still lists it.
    const alone = await callOk(
      client,
      'search_memory',
      { scope_ids: ['alpha'], query: 'deploys' },
      searchOutput,
    );
    expect(alone.scopes?.map((scope) => scope.scope_id)).toEqual(['alpha']);
    expect(alone.hits.map((hit) => hit.scope_id)).toEqual(['alpha']);
  });
});
