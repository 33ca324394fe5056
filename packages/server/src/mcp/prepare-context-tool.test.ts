import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RerankEvidenceError } from '@powercontext/context-assembly';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL, type Permission, type Principal } from '../auth/principal.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { callError, callFailing } from './mcp-test-client.test.helper.js';
import { createMemoryMcpServer } from './memory-tools.js';
import { prepareContextOutput } from './tool-schemas.js';

let runtime: Runtime;
const clients: Client[] = [];
const SCOPE = 'alpha';
const NOTES = [
  { text: 'We deploy on Fridays only after the freeze review.', source: 'standup-12' },
  { text: 'Deploys need a <second> review & a green pipeline.', source: 'standup-13' },
  { text: 'The staging database is rebuilt every night.', source: 'runbook' },
];

beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  await runtime.memory.forScope(SCOPE).remember({
    entries: NOTES.map(({ text, source }) => ({ text, sources: [{ sourceId: source }] })),
  });
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await runtime.close();
});

async function connect(principal: Principal = LOCAL_PRINCIPAL, over: Runtime = runtime): Promise<Client> {
  const server = createMemoryMcpServer({ runtime: over, principal });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'prepare-context-test', version: '1.0.0' });
  await client.connect(clientSide);
  // Fetching the tool list lets the client check structured results against the output schema.
  await client.listTools();
  clients.push(client);
  return client;
}

const key = (scopes: Principal['scopes'], permissions: Permission[]): Principal => ({
  keyId: 'test-key',
  scopes,
  permissions: new Set(permissions),
});

/** Calls prepare_context, which must succeed: the context as text, the report as structured content. */
async function prepare(client: Client, args: Record<string, unknown>) {
  const result = (await client.callTool({ name: 'prepare_context', arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`prepare_context failed: ${JSON.stringify(result.content)}`);
  expect(result.content).toHaveLength(1);
  const block = result.content[0]!;
  return {
    context: block.type === 'text' ? block.text : '',
    report: prepareContextOutput.parse(result.structuredContent),
    structured: result.structuredContent,
  };
}

describe('the prepare_context MCP tool', () => {
  it('answers the framed context as text and the rest of the HTTP answer as structured content', async () => {
    const client = await connect(key([SCOPE], ['read']));
    const args = {
      scope_id: SCOPE,
      query: 'deploy review',
      mode: 'fts',
      contract: { max_chunks: 1, tokenizer: 'cl100k_base' },
    };
    const { context, report, structured } = await prepare(client, args);
    expect(context.startsWith('<notice>')).toBe(true);
    expect(context).toContain('</retrieved_memory>');
    expect(structured).not.toHaveProperty('context');
    expect(report.contract).toMatchObject({ max_chunks: 1, tokenizer: 'cl100k_base' });
    expect(report.selected).toHaveLength(1);
    expect(report.omitted.map((omission) => omission.reason)).toEqual(['chunk_limit']);
    expect(report.total_tokens).toBe(report.frame_tokens + report.selected[0]!.tokens);
    // Retrieved text is escaped inside the frame and appears nowhere in the structured content.
    for (const { text } of NOTES) expect(JSON.stringify(structured)).not.toContain(text.slice(0, 16));

    // The same request over HTTP answers the same JSON, `context` included.
    const { call } = createTestApp(runtime);
    const http = await call<Record<string, unknown>>('/v1/context/prepare', args, {
      key: secretOf('alpha-reader'),
    });
    expect(http.status).toBe(200);
    expect(http.json).toEqual({ ...(structured as object), context });
  });

  it('reports a bad contract as invalid_request naming contract.* fields, as the HTTP route does', async () => {
    const client = await connect();
    const { call } = createTestApp(runtime);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ token_budget: 0, max_chunks: 101 }, ['contract.token_budget', 'contract.max_chunks']],
      [
        { per_source_cap: 0, duplicates: { near: { threshold: 1.5 } } },
        ['contract.per_source_cap', 'contract.duplicates.near.threshold'],
      ],
      [{ token_budget: 12 }, ['contract.token_budget']],
    ];
    for (const [contract, fields] of cases) {
      const args = { scope_id: SCOPE, query: 'deploy', contract };
      const error = await callError(client, 'prepare_context', args);
      expect(error.code).toBe('invalid_request');
      expect(error.details?.issues).toMatchObject(fields.map((field) => ({ field })));
      // The route's schema and the runtime's check answer with the same issues.
      const http = await call('/v1/context/prepare', args, { key: secretOf('alpha-all') });
      expect(http.status).toBe(422);
      expect(error.details?.issues).toEqual(http.json.error.details?.issues);
    }
    expect(
      (
        await callError(client, 'prepare_context', {
          scope_id: SCOPE,
          query: 'x',
          contract: { token_budget: 12 },
        })
      ).details?.issues,
    ).toEqual([
      {
        field: 'contract.token_budget',
        rule: expect.stringMatching(/^token_budget must be at least the \d+ tokens the frame itself takes$/u),
      },
    ]);
    // Values outside the allowed set are refused by the tool's own schema, naming the argument.
    expect(
      await callFailing(client, 'prepare_context', {
        scope_id: SCOPE,
        query: 'x',
        contract: { ordering: 'random' },
      }),
    ).toContain('ordering');
  });

  it('needs the read permission on the scope, and tells no scope apart from a foreign one', async () => {
    const writer = await connect(key([SCOPE], ['write']));
    expect(await callError(writer, 'prepare_context', { scope_id: SCOPE, query: 'deploy' })).toEqual({
      code: 'permission_forbidden',
      message: 'This API key lacks the read permission',
      retryable: false,
    });
    const other = await connect(key(['beta'], ['read']));
    const foreign = await callError(other, 'prepare_context', { scope_id: SCOPE, query: 'deploy' });
    const unknown = await callError(other, 'prepare_context', { scope_id: 'gamma', query: 'deploy' });
    expect(foreign.code).toBe('scope_forbidden');
    expect(foreign.message.replace(SCOPE, 'X')).toBe(unknown.message.replace('gamma', 'X'));
  });

  it('hides a rerank evidence mismatch as internal_error', async () => {
    const failing = {
      memory: {
        forScope: () => ({
          prepareContext: async () => {
            throw new RerankEvidenceError('reordered', 'candidate 2 moved');
          },
        }),
      },
    } as unknown as Runtime;
    const client = await connect(LOCAL_PRINCIPAL, failing);
    expect(await callError(client, 'prepare_context', { scope_id: SCOPE, query: 'deploy' })).toEqual({
      code: 'internal_error',
      message: 'The server failed to handle the request',
      retryable: false,
    });
  });
});
