import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createRuntime, MODEL_CALLABLE_TOOLS, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL, type Principal } from '../auth/principal.js';
import { createMemoryMcpServer } from './memory-tools.js';
import { MCP_TOOL_NAMES, MCP_USAGE } from './stdio.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-contract-'));
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
}, 60_000);
afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function connect(principal: Principal = LOCAL_PRINCIPAL): Promise<Client> {
  const server = createMemoryMcpServer({ runtime, principal });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'contract-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: unknown;
};
const errorOf = (result: ToolResult) => {
  expect(result.isError).toBe(true);
  return JSON.parse(result.content[0]!.text).error as { code: string; details?: { issues?: unknown } };
};

describe('MCP tools an agent can use well (issue 15)', () => {
  it('advertises the real integer bounds, never the safe-integer range', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      MODEL_CALLABLE_TOOLS.map((tool) => tool.name).sort(),
    );
    const text = JSON.stringify(tools.map((tool) => tool.inputSchema));
    expect(text).not.toContain('9007199254740991');
    const search = tools.find((tool) => tool.name === 'search_memory')!;
    expect(search.inputSchema.properties?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    const list = tools.find((tool) => tool.name === 'list_memory_entries')!;
    expect(list.inputSchema.properties?.limit).toMatchObject({ minimum: 1, maximum: 200 });
    expect(list.inputSchema.properties?.revision).toMatchObject({ minimum: 1, maximum: 2_147_483_647 });
    await client.close();
  });

  it('answers a schema failure as the same isError ToolError as every other failure', async () => {
    const client = await connect();
    // On 6a3d005 both came back as a bare "Input validation error: ..." text.
    const wrongType = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id: 's', query: 'x', limit: '5' },
    })) as ToolResult;
    expect(errorOf(wrongType)).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ field: 'limit' }] },
    });
    const missing = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id: 's' },
    })) as ToolResult;
    expect(errorOf(missing)).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ field: 'query' }] },
    });
    const tooMany = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id: 's', query: 'x', limit: 500 },
    })) as ToolResult;
    expect(errorOf(tooMany).code).toBe('invalid_request');
    const unknownEntry = (await client.callTool({
      name: 'get_memory_entry',
      arguments: { scope_id: 's', entry_id: '00000000-0000-4000-8000-000000000000' },
    })) as ToolResult;
    expect(errorOf(unknownEntry).code).toBe('not_found');
    await client.close();
  });

  it('reactivates an entry and lists the changes between revisions', async () => {
    const client = await connect();
    const remembered = (await client.callTool({
      name: 'remember_memory',
      arguments: { scope_id: 'tools', entries: [{ text: 'The standup moved to 9:30' }] },
    })) as ToolResult & { structuredContent: { entries: { entry_id: string }[] } };
    const entryId = remembered.structuredContent.entries[0]!.entry_id;
    await client.callTool({
      name: 'forget_memory_entry',
      arguments: { scope_id: 'tools', entry_id: entryId },
    });
    const reactivated = (await client.callTool({
      name: 'reactivate_memory_entry',
      arguments: { scope_id: 'tools', entry_id: entryId },
    })) as ToolResult;
    expect(reactivated.isError).toBeFalsy();
    expect(reactivated.structuredContent).toMatchObject({ status: 'created', memory: { revision: 3 } });
    const changes = (await client.callTool({
      name: 'list_memory_changes',
      arguments: { scope_id: 'tools', from_revision: 1 },
    })) as ToolResult;
    expect(changes.structuredContent).toMatchObject({
      from_revision: 1,
      to_revision: 3,
      changes: [
        { revision: 2, operation: 'forget' },
        { revision: 3, operation: 'reactivate' },
      ],
    });
    const past = (await client.callTool({
      name: 'list_memory_changes',
      arguments: { scope_id: 'tools', from_revision: 9 },
    })) as ToolResult;
    expect(errorOf(past).code).toBe('not_found');
    await client.close();
  });

  it('lists every tool in `powercontext mcp --help` (prepare_context was missing)', () => {
    for (const tool of MODEL_CALLABLE_TOOLS) expect(MCP_USAGE).toContain(tool.name);
    // stdio.ts spells the names out, so that --help answers before the runtime loads: same list.
    expect(MCP_TOOL_NAMES).toEqual(MODEL_CALLABLE_TOOLS.map((tool) => tool.name));
  });

  it('tells a caller which scopes it may use', async () => {
    const limited = await connect({
      keyId: 'k',
      scopes: ['tools', 'alpha'],
      permissions: new Set(['read']),
    });
    const mine = (await limited.callTool({ name: 'list_scopes', arguments: {} })) as ToolResult;
    expect(mine.structuredContent).toEqual({
      any_scope: false,
      scopes: ['alpha', 'tools'],
      permissions: ['read'],
    });
    await limited.close();
    const local = await connect();
    const every = (await local.callTool({ name: 'list_scopes', arguments: {} })) as ToolResult;
    expect(every.structuredContent).toMatchObject({
      any_scope: true,
      permissions: ['read', 'write', 'explain', 'purge'],
    });
    expect((every.structuredContent as { scopes: string[] }).scopes).toContain('tools');
    await local.close();
  });
});
