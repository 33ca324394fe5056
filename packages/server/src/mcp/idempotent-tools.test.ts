import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL } from '../auth/principal.js';
import { callError } from './mcp-test-client.test.helper.js';
import { createMemoryMcpServer, IDEMPOTENT_REPLAYED_META } from './memory-tools.js';

let runtime: Runtime;
let client: Client;

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  const server = createMemoryMcpServer({ runtime, principal: LOCAL_PRINCIPAL });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'idempotent-tools-test', version: '1.0.0' });
  await client.connect(clientSide);
  // The client then checks every structured result against the tool's output schema.
  await client.listTools();
});

afterAll(async () => {
  await client.close();
  await runtime.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result;
}

const WRITE_TOOLS = [
  'remember_memory',
  'revise_memory_entry',
  'forget_memory_entry',
  'reactivate_memory_entry',
  'purge_memory_entry',
];

describe('idempotent MCP write tools', () => {
  it('declare idempotency_key with its rule on every write tool, and on no read tool', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const property = (tool.inputSchema.properties as Record<string, Record<string, unknown>>)
        .idempotency_key;
      if (!WRITE_TOOLS.includes(tool.name)) {
        expect(property, tool.name).toBeUndefined();
        continue;
      }
      expect(property, tool.name).toMatchObject({
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[!-~]+$',
      });
      expect(String(property?.description)).toContain('idempotency_key_reused');
      expect(tool.inputSchema.required).not.toContain('idempotency_key');
    }
  });

  it('answer a repeated keyed call with the first result, marked in _meta, and write nothing', async () => {
    const scope = { scope_id: 'mcp-idempotent' };
    const first = await call('remember_memory', {
      ...scope,
      entries: [{ text: 'Kept once' }],
      idempotency_key: 'm-1',
    });
    expect(first._meta).toBeUndefined();
    const again = await call('remember_memory', {
      ...scope,
      entries: [{ text: 'Kept once' }],
      idempotency_key: 'm-1',
    });
    expect(again._meta).toEqual({ [IDEMPOTENT_REPLAYED_META]: true });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again.content).toEqual(first.content);

    const entryId = (first.structuredContent as { entries: { entry_id: string }[] }).entries[0]!.entry_id;
    const calls: [string, Record<string, unknown>][] = [
      ['revise_memory_entry', { ...scope, entry_id: entryId, text: 'Kept once, revised' }],
      ['forget_memory_entry', { ...scope, entry_id: entryId }],
      ['reactivate_memory_entry', { ...scope, entry_id: entryId }],
    ];
    for (const [name, args] of calls) {
      const written = await call(name, { ...args, idempotency_key: `m-${name}` });
      const repeated = await call(name, { ...args, idempotency_key: `m-${name}` });
      expect(repeated._meta, name).toEqual({ [IDEMPOTENT_REPLAYED_META]: true });
      expect(repeated.structuredContent, name).toEqual(written.structuredContent);
    }
    const changes = await runtime.memory.forScope('mcp-idempotent').changes();
    expect(changes.memory?.revision).toBe(4);
  });

  it('replay a keyed purge, and forget the stored answers of the keyed writes of the purged entry', async () => {
    const scope = { scope_id: 'mcp-idempotent-purge' };
    const first = await call('remember_memory', {
      ...scope,
      entries: [{ text: 'The safe code is 4417' }],
      idempotency_key: 'p-remember',
    });
    const entryId = (first.structuredContent as { entries: { entry_id: string }[] }).entries[0]!.entry_id;
    const revise = {
      ...scope,
      entry_id: entryId,
      text: 'The safe code is 9902',
      idempotency_key: 'p-revise',
    };
    const revised = await call('revise_memory_entry', revise);
    expect(JSON.stringify(revised.structuredContent)).not.toContain('9902');
    const purge = { ...scope, entry_id: entryId, idempotency_key: 'p-purge' };
    const purged = await call('purge_memory_entry', purge);
    expect(purged._meta).toBeUndefined();
    const repeated = await call('purge_memory_entry', purge);
    expect(repeated._meta).toEqual({ [IDEMPOTENT_REPLAYED_META]: true });
    expect(repeated.structuredContent).toEqual(purged.structuredContent);
    // The revise's stored answer went with the entry: its key no longer replays, the entry is gone.
    expect(await callError(client, 'revise_memory_entry', revise)).toMatchObject({ code: 'entry_purged' });
    const rememberedAgain = await call('remember_memory', {
      ...scope,
      entries: [{ text: 'The safe code is 4417' }],
      idempotency_key: 'p-remember',
    });
    expect(rememberedAgain._meta).toBeUndefined();
    expect(await runtime.memory.forScope(scope.scope_id).changes()).toMatchObject({
      memory: { revision: 4 },
    });
  });

  it('keep the stored answers per API key: another key’s call with the same idempotency_key is its own (issue 28)', async () => {
    const scope = { scope_id: 'mcp-idempotent-owners' };
    const clientOf = async (keyId: string) => {
      const principal = { keyId, scopes: '*' as const, permissions: new Set(['read', 'write'] as const) };
      const server = createMemoryMcpServer({ runtime, principal });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const keyed = new Client({ name: `idempotent-tools-${keyId}`, version: '1.0.0' });
      await keyed.connect(clientSide);
      return keyed;
    };
    const [one, two] = [await clientOf('key-one'), await clientOf('key-two')];
    try {
      const remember = (by: Client, text: string) =>
        by.callTool({
          name: 'remember_memory',
          arguments: { ...scope, entries: [{ text }], idempotency_key: 'm-owners' },
        }) as Promise<CallToolResult>;
      const first = await remember(one, 'called by the first key');
      const second = await remember(two, 'called by the second key');
      expect(second.isError, JSON.stringify(second.content)).toBeFalsy();
      expect(second._meta).toBeUndefined();
      const ids = [first, second].map(
        (result) => (result.structuredContent as { entries: { entry_id: string }[] }).entries[0]!.entry_id,
      );
      expect(ids[1]).not.toBe(ids[0]);
      const replayed = await remember(two, 'called by the second key');
      expect(replayed._meta).toEqual({ [IDEMPOTENT_REPLAYED_META]: true });
      expect(replayed.structuredContent).toEqual(second.structuredContent);
      // The local principal (stdio, a keyless server) has the scope's shared namespace of its own.
      expect(
        (
          await call('remember_memory', {
            ...scope,
            entries: [{ text: 'local' }],
            idempotency_key: 'm-owners',
          })
        )._meta,
      ).toBeUndefined();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('refuse a key reused for other arguments, and a key that breaks the rule, naming idempotency_key', async () => {
    const scope = { scope_id: 'mcp-reused' };
    await call('remember_memory', { ...scope, entries: [{ text: 'first' }], idempotency_key: 'r-1' });
    const reused = await callError(client, 'remember_memory', {
      ...scope,
      entries: [{ text: 'second' }],
      idempotency_key: 'r-1',
    });
    expect(reused).toMatchObject({ code: 'idempotency_key_reused', retryable: false });
    const invalid = await callError(client, 'remember_memory', {
      ...scope,
      entries: [{ text: 'third' }],
      idempotency_key: 'has space',
    });
    expect(invalid).toMatchObject({
      code: 'invalid_request',
      details: {
        issues: [
          {
            field: 'idempotency_key',
            rule: 'idempotency_key must be visible ASCII characters only (! to ~, no spaces)',
          },
        ],
      },
    });
    expect((await runtime.memory.forScope('mcp-reused').list()).entries.map((entry) => entry.text)).toEqual([
      'first',
    ]);
  });
});
