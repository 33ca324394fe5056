import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createRuntime, type Runtime, type RuntimeConfig, Secret } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL } from '../auth/principal.js';
import { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-tools.js';

// Every agent loads the whole tools/list answer into its context at each start (issue 30.3): it was
// 43,978 characters on 09c3aed.
const TOOL_LIST_MAX_CHARS = 20_000;
const READ_TOOLS = [
  'search_memory',
  'prepare_context',
  'list_memory_entries',
  'get_memory_entry',
  'list_memory_changes',
];

const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-size-'));
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
}, 60_000);
afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function listTools(serverRuntime: MemoryMcpServerOptions['runtime']) {
  const server = createMemoryMcpServer({ runtime: serverRuntime, principal: LOCAL_PRINCIPAL });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'size-test', version: '1.0.0' });
  await client.connect(clientSide);
  const listed = await client.listTools();
  await client.close();
  return listed;
}

/** The answer's size in characters, printed with each tool's share. */
function measured(label: string, listed: Awaited<ReturnType<typeof listTools>>): number {
  const total = JSON.stringify(listed).length;
  const rows = listed.tools
    .map((tool) => ({ name: tool.name, chars: JSON.stringify(tool).length }))
    .sort((a, b) => b.chars - a.chars);
  console.log(
    [`tools/list (${label}): ${total} characters`, ...rows.map((row) => `  ${row.name}: ${row.chars}`)].join(
      '\n',
    ),
  );
  expect(rows.reduce((sum, row) => sum + row.chars, 0)).toBeLessThanOrEqual(total);
  return total;
}

/** A server configured to read from a replica; no connection is made to list the tools. */
function replicatedConfig(): RuntimeConfig {
  return {
    ...runtime.config,
    store: {
      kind: 'postgres',
      connectionString: new Secret('postgres://primary.invalid/memory'),
      readConnectionStrings: [new Secret('postgres://replica.invalid/memory')],
    },
  };
}

describe('the MCP tool list an agent loads', () => {
  it(`stays under ${TOOL_LIST_MAX_CHARS} characters, and prints its size per tool`, async () => {
    const listed = await listTools(runtime);
    expect(listed.tools).toHaveLength(12);
    expect(measured('embedded store', listed)).toBeLessThan(TOOL_LIST_MAX_CHARS);
    // Keys that constrain nothing are not sent (tool-list.ts); every input schema still has properties.
    const sent = JSON.stringify(listed);
    for (const idle of ['"$schema"', '"additionalProperties":{}', '"items":{}', '"taskSupport":"forbidden"'])
      expect(sent).not.toContain(idle);
    for (const tool of listed.tools) {
      expect(tool.inputSchema.properties, tool.name).toBeDefined();
      // Still an output schema for each tool, naming its top-level fields and which are required.
      expect(Object.keys(tool.outputSchema?.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      // min_revision is said briefly where reads cannot lag.
      const minRevision = tool.inputSchema.properties?.min_revision as { description?: string } | undefined;
      if (READ_TOOLS.includes(tool.name)) expect(minRevision?.description).not.toMatch(/replica/u);
      else expect(minRevision, tool.name).toBeUndefined();
    }
  });

  it('describes what a lagging replica does only on a server with replicas, still under the bound', async () => {
    const listed = await listTools({
      memory: runtime.memory,
      capabilities: runtime.capabilities,
      config: replicatedConfig(),
    });
    expect(measured('with read replicas', listed)).toBeLessThan(TOOL_LIST_MAX_CHARS);
    for (const name of READ_TOOLS) {
      const tool = listed.tools.find((candidate) => candidate.name === name)!;
      const minRevision = tool.inputSchema.properties?.min_revision as {
        description?: string;
        maximum?: number;
      };
      expect(minRevision.description, name).toMatch(/replica/u);
      expect(minRevision.maximum, name).toBe(2_147_483_647);
    }
  });

  it("advertises each result's top-level fields, which are required, and their allowed values", async () => {
    const listed = await listTools(runtime);
    const search = listed.tools.find((tool) => tool.name === 'search_memory')!;
    expect(search.outputSchema?.required).toEqual(expect.arrayContaining(['memory', 'mode', 'hits']));
    expect((search.outputSchema?.properties?.mode as { enum?: string[] } | undefined)?.enum).toEqual([
      'fts',
      'vector',
      'hybrid',
    ]);
  });
});
