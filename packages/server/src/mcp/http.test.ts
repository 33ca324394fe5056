import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL, type Principal } from '../auth/principal.js';
import { handleMcpHttp } from './http.js';
import { callError, callOk } from './mcp-test-client.test.helper.js';
import { rememberOutput, searchOutput } from './tool-schemas.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-http-'));
let runtime: Runtime;
let server: ReturnType<typeof serve>;
let baseUrl: string;

// A stand-in for the server's authentication: the bearer token names the principal.
const PRINCIPALS: Record<string, Principal> = {
  local: LOCAL_PRINCIPAL,
  'reader-a': { keyId: 'reader-a', scopes: ['http-a'], permissions: new Set(['read']) },
};

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
  await new Promise<void>((resolve) => {
    server = serve(
      {
        port: 0,
        hostname: '127.0.0.1',
        fetch: (request) => {
          const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
          const principal = PRINCIPALS[token];
          if (!principal) return Response.json({ error: { code: 'unauthenticated' } }, { status: 401 });
          return handleMcpHttp(request, { runtime, principal });
        },
      },
      (info: AddressInfo) => {
        baseUrl = `http://127.0.0.1:${info.port}/mcp`;
        resolve();
      },
    );
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  await client.listTools();
  return client;
}

describe('MCP over Streamable HTTP (stateless)', () => {
  it('serves the tools to the SDK client, one server per request', async () => {
    const client = await connect('local');
    try {
      const remembered = await callOk(
        client,
        'remember_memory',
        { scope_id: 'http-a', entries: [{ text: 'The release train leaves every second Thursday.' }] },
        rememberOutput,
      );
      const found = await callOk(
        client,
        'search_memory',
        { scope_id: 'http-a', query: 'release train', mode: 'fts' },
        searchOutput,
      );
      expect(found.hits[0]?.citation).toEqual({
        memory_ref: remembered.memory,
        entry_id: remembered.entries[0]!.entry_id,
        entry_version_id: remembered.entries[0]!.entry_version_id,
      });
    } finally {
      await client.close();
    }
  });

  it('checks the request principal in every call', async () => {
    const client = await connect('reader-a');
    try {
      const found = await callOk(
        client,
        'search_memory',
        { scope_id: 'http-a', query: 'release' },
        searchOutput,
      );
      expect(found.hits).toHaveLength(1);
      expect(
        await callError(client, 'search_memory', { scope_id: 'http-b', query: 'release' }),
      ).toMatchObject({
        code: 'scope_forbidden',
        retryable: false,
      });
      expect(
        await callError(client, 'remember_memory', { scope_id: 'http-a', entries: [{ text: 'x' }] }),
      ).toMatchObject({ code: 'permission_forbidden' });
    } finally {
      await client.close();
    }
  });

  it('answers GET and DELETE with 405, since there are no sessions', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(baseUrl, {
        method,
        headers: { authorization: 'Bearer local', accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('answers a malformed JSON-RPC body with a JSON-RPC error, not a crash', async () => {
    const response = await fetch(baseUrl, {
      method: 'POST',
      headers: {
        authorization: 'Bearer local',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc": "2.0", "method": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});
