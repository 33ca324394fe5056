import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetEntryResponse, RememberResponse } from '@powercontext/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { hostileValue, mutatedBody, oddText, rawBody, serialize } from '../testing-support/hostile.js';
import {
  ERROR_STATUS,
  errorShapeProblem,
  type HttpResult,
  send,
  sendRaw,
  sleep,
} from '../testing-support/http.js';
import { writeKeysFile } from '../testing-support/keys.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { logLines, type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 5: hostile input. fast-check generates thousands of requests against every HTTP route and
 * every MCP tool of a real server process on PostgreSQL. Whatever comes in, the server never answers
 * 5xx, never crashes, and always answers in the documented shape; odd but valid text round-trips
 * exactly.
 */

/**
 * Outside CI the run can be made longer: POWERCONTEXT_RELIABILITY_HOSTILE_SCALE=N (1-100, default 1)
 * multiplies every property's number of generated cases (N=3 sends more than 10,000 generated
 * requests). CI keeps the default.
 */
const SCALE = hostileScale(process.env.POWERCONTEXT_RELIABILITY_HOSTILE_SCALE);
const runs = (count: number) => count * SCALE;
vi.setConfig({ testTimeout: 120_000 * SCALE });

function hostileScale(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (!/^\d+$/u.test(raw) || Number(raw) < 1 || Number(raw) > 100) {
    throw new Error('POWERCONTEXT_RELIABILITY_HOSTILE_SCALE must be an integer from 1 to 100');
  }
  return Number(raw);
}

const RUNS_PER_ROUTE = runs(200);
const RUNS_PER_TOOL = runs(120);
const BODY_LIMIT = 262_144;

const tally = new Tally('5 hostile input (fast-check)');
const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-hostile-'));
const keys = writeKeysFile(dir, [
  {
    id: 'fuzzer',
    scopes: '*',
    permissions: ['read', 'write', 'explain'],
    rate_limit: { requests: 1_000_000, window_seconds: 1 },
  },
]);
const KEY = keys.secretOf('fuzzer');
let database: TestDatabase;
let server: ServerProcess;
let entryId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServer({
    args: ['--database-url', database.connectionString, '--api-keys-file', keys.file],
    env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'info', POWERCONTEXT_SERVER_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
  });
  const seeded = await send<RememberResponse>(server.url, '/v1/memory/remember', {
    key: KEY,
    body: { scope_id: 'fuzz', entries: [{ text: 'a fuzz target note about deploy windows' }] },
  });
  expect(seeded.status).toBe(200);
  entryId = seeded.json.entries[0]!.entry_id;
});

afterAll(async () => {
  tally.note(
    `${lostAnswers} answers to over-limit bodies lost by the client mid-upload; the server logged 413 for each`,
  );
  tally.note(
    `scale ${SCALE} (POWERCONTEXT_RELIABILITY_HOSTILE_SCALE): ${tally.report.requests} requests in all`,
  );
  tally.save(inject('reportsDir'));
  // Never a crash, and nothing failed inside the server: no internal_error in its log.
  const alive = server?.alive() ?? false;
  const internal = server
    ? logLines(server).filter((line) => line.event === 'http.error' || line.code === 'internal_error')
    : [];
  const exitCode = await server?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
  expect(alive).toBe(true);
  expect(internal.map((line) => `${line.error_name}: ${line.error_message}`)).toEqual([]);
  expect(exitCode).toBe(0);
});

/** The problem with an HTTP answer to hostile input, or undefined when it is as documented. */
function httpProblem(result: HttpResult): string | undefined {
  if (result.status === 0) return `no answer: ${result.transportError}`;
  if (result.status >= 500) return `status ${result.status}: ${result.text.slice(0, 300)}`;
  if (result.json === undefined) return `status ${result.status} with a body that is not JSON`;
  if (result.status === 200) {
    return typeof result.json === 'object' && result.json !== null && 'memory' in result.json
      ? undefined
      : `200 without memory: ${result.text.slice(0, 200)}`;
  }
  return errorShapeProblem(result.status, result.json);
}

let requestNumber = 0;

/**
 * POSTs a hostile body. An answer lost because the server closed the connection while a body over the
 * limit was still being sent counts as answered when the server logged its 413 for that request id.
 */
async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const requestId = `fuzz-${++requestNumber}`;
  tally.fault();
  const result = await sendRaw(server.url, path, body, {
    'content-type': 'application/json',
    authorization: `Bearer ${KEY}`,
    'x-request-id': requestId,
    ...headers,
  });
  if (result.status === 0 && Buffer.byteLength(body) > BODY_LIMIT) {
    const logged = await loggedStatus(requestId);
    if (logged === 413) {
      lostAnswers += 1;
      return tally.record({
        ...result,
        status: 413,
        json: { error: { code: 'payload_too_large', message: '', retryable: false } },
        errorKind: 'payload_too_large',
      });
    }
  }
  return tally.record(result);
}

/** Answers to over-limit bodies the client lost while still sending (the server's log shows the 413). */
let lostAnswers = 0;

/** The status the server logged for a request id (waits up to 2 s for the line). */
async function loggedStatus(requestId: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const line = logLines(server).find(
      (entry) => entry.event === 'http.request' && entry.request_id === requestId,
    );
    if (line) return line.status as number;
    await sleep(50);
  }
  return undefined;
}

const ROUTES = (): Record<string, Record<string, unknown>> => ({
  '/v1/memory/search': {
    scope_id: 'fuzz',
    query: 'deploy windows',
    limit: 5,
    mode: 'fts',
    explain: 'redacted',
  },
  '/v1/memory/remember': {
    scope_id: 'fuzz',
    entries: [
      {
        text: 'a fuzz note',
        kind: 'note',
        sources: [{ source_id: 's1', locator: 'l1' }],
        position: { source_id: 's1', order: [1, 2] },
        metadata: { team: 'platform', tags: ['a', 'b'] },
      },
    ],
  },
  '/v1/memory/entries/list': { scope_id: 'fuzz', state: 'all', revision: 1, limit: 10 },
  '/v1/memory/entries/get': { scope_id: 'fuzz', entry_id: entryId, revision: 1 },
  '/v1/memory/entries/revise': {
    scope_id: 'fuzz',
    entry_id: entryId,
    text: 'revised',
    kind: 'note',
    metadata: { a: 1 },
  },
  '/v1/memory/entries/forget': { scope_id: 'fuzz', entry_id: entryId },
  '/v1/memory/entries/reactivate': { scope_id: 'fuzz', entry_id: entryId },
  '/v1/memory/changes': { scope_id: 'fuzz', from_revision: 0, to_revision: 1, limit: 10 },
});

describe('every HTTP route under generated hostile bodies', () => {
  it.each(Object.keys(ROUTES()))('%s never answers 5xx and always in the documented shape', async (path) => {
    const base = ROUTES()[path]!;
    await fc.assert(
      fc.asyncProperty(mutatedBody(base), async (body) => {
        const result = await post(path, serialize(body));
        const problem = httpProblem(result);
        if (problem) throw new Error(`${path} ${serialize(body).slice(0, 300)}: ${problem}`);
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
  });

  it('raw bodies: invalid UTF-8 bytes, truncated JSON, odd content types', async () => {
    const paths = Object.keys(ROUTES());
    await fc.assert(
      fc.asyncProperty(rawBody, fc.constantFrom(...paths), async ({ bytes, contentType }, path) => {
        const result = await post(path, bytes, { 'content-type': contentType });
        const problem = httpProblem(result);
        if (problem)
          throw new Error(`${path} ${Buffer.from(bytes).toString('hex').slice(0, 200)}: ${problem}`);
      }),
      { numRuns: runs(300) },
    );
  });

  it('unknown routes and methods answer 404/405 in the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'POST'),
        fc.oneof(fc.constantFrom(...Object.keys(ROUTES()), '/v1/capabilities', '/v1/memory'), fc.webPath()),
        async (method, path) => {
          const result = tally.record(
            await send(server.url, path.startsWith('/') ? path : `/${path}`, {
              key: KEY,
              method,
              ...(method === 'GET' ? {} : { raw: '{}' }),
            }),
          );
          if (result.status === 200) return;
          const problem = httpProblem(result);
          if (problem) throw new Error(`${method} ${path}: ${problem}`);
        },
      ),
      { numRuns: runs(150) },
    );
  });
});

describe('odd but valid text round-trips exactly', () => {
  it('remember then get returns the identical text, metadata and source id; search with it as the query answers', async () => {
    await fc.assert(
      fc.asyncProperty(oddText, oddText, async (text, other) => {
        const remembered = tally.record(
          await send<RememberResponse>(server.url, '/v1/memory/remember', {
            key: KEY,
            body: {
              scope_id: 'roundtrip',
              entries: [{ text, sources: [{ source_id: other.slice(0, 512) }], metadata: { [other]: text } }],
            },
          }),
        );
        if (other === '__proto__') {
          // Refused by name rather than dropped by the schema layer (a defect this suite found).
          expect(remembered.status).toBe(422);
          expect(remembered.text).toContain('keys named __proto__ are not accepted');
          return;
        }
        if (remembered.status !== 200)
          throw new Error(`remember ${JSON.stringify(text)}: ${remembered.text}`);
        const got = tally.record(
          await send<GetEntryResponse>(server.url, '/v1/memory/entries/get', {
            key: KEY,
            body: { scope_id: 'roundtrip', entry_id: remembered.json.entries[0]!.entry_id },
          }),
        );
        expect(got.status).toBe(200);
        expect(got.json.entry.text).toBe(text);
        if (remembered.json.entries[0]!.status === 'created') {
          expect(got.json.entry.metadata).toEqual({ [other]: text });
          expect(got.json.entry.sources).toEqual([{ source_id: other.slice(0, 512) }]);
        }
        const searched = tally.record(
          await send(server.url, '/v1/memory/search', {
            key: KEY,
            body: { scope_id: 'roundtrip', query: text.slice(0, 8_192), limit: 3 },
          }),
        );
        expect(httpProblem(searched)).toBeUndefined();
      }),
      { numRuns: runs(150) },
    );
  });
});

// ---- MCP: JSON-RPC tools/call at /mcp ----

const TOOLS = (): Record<string, Record<string, unknown>> => ({
  search_memory: { scope_id: 'fuzz', query: 'deploy', limit: 5, mode: 'hybrid' },
  remember_memory: {
    scope_id: 'fuzz',
    entries: [
      {
        text: 'mcp fuzz note',
        kind: 'note',
        sources: [{ source_id: 's', locator: 'l' }],
        metadata: { a: [1] },
      },
    ],
  },
  list_memory_entries: { scope_id: 'fuzz', state: 'active', revision: 1, limit: 10 },
  get_memory_entry: { scope_id: 'fuzz', entry_id: entryId, revision: 1 },
  revise_memory_entry: {
    scope_id: 'fuzz',
    entry_id: entryId,
    text: 'mcp revised',
    kind: 'note',
    metadata: {},
  },
  forget_memory_entry: { scope_id: 'fuzz', entry_id: entryId },
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function mcp(bodyText: string) {
  return post('/mcp', bodyText, MCP_HEADERS);
}

interface JsonRpcReply {
  result?: {
    isError?: boolean;
    content?: { type: string; text?: string }[];
    structuredContent?: unknown;
  } & Record<string, unknown>;
  error?: { code?: unknown };
}

/** The problem with an MCP answer, or undefined when it is a documented one. */
function mcpProblem(result: HttpResult): string | undefined {
  if (result.status === 0) return `no answer: ${result.transportError}`;
  if (result.status >= 500) return `status ${result.status}: ${result.text.slice(0, 300)}`;
  const body = result.json as JsonRpcReply | JsonRpcReply[] | undefined;
  if (body === undefined) return `status ${result.status} with a body that is not JSON`;
  if (result.status !== 200) {
    // Refused before JSON-RPC (auth, body limit: our error shape) or by the transport (a JSON-RPC error).
    if (!Array.isArray(body) && typeof body.error?.code === 'number') return undefined;
    return errorShapeProblem(result.status, body);
  }
  const replies = Array.isArray(body) ? body : [body];
  for (const reply of replies) {
    const problem = replyProblem(reply);
    if (problem) return problem;
  }
  return undefined;
}

function replyProblem(reply: JsonRpcReply): string | undefined {
  if (reply.error) return typeof reply.error.code === 'number' ? undefined : 'JSON-RPC error without a code';
  const toolResult = reply.result;
  if (!toolResult) return 'neither result nor error';
  if (toolResult.isError !== true) {
    // A tool's success carries structured content; other methods (tools/list, ...) their own result.
    return 'content' in toolResult && typeof toolResult.structuredContent !== 'object'
      ? 'a tool success without structured content'
      : undefined;
  }
  const text = toolResult.content?.[0]?.text ?? '';
  // The SDK's own refusals: arguments that break the tool's schema, a tool that does not exist.
  if (text.startsWith('MCP error -32602')) {
    tally.error('mcp_tool:invalid_arguments');
    return undefined;
  }
  let parsed: { error?: { code?: string } };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return `isError text is neither a ToolError nor an argument error: ${text.slice(0, 200)}`;
  }
  const code = parsed.error?.code;
  if (typeof code !== 'string' || !(code in ERROR_STATUS)) return `unknown tool error code ${String(code)}`;
  tally.error(`mcp_tool:${code}`);
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] >= 500)
    return `tool error ${code}: ${text.slice(0, 200)}`;
  return undefined;
}

describe('every MCP tool under generated hostile arguments', () => {
  let id = 0;
  const call = (name: string, args: unknown) =>
    serialize({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });

  it.each(Object.keys(TOOLS()))('%s answers a documented result or error, never a 5xx', async (tool) => {
    await fc.assert(
      fc.asyncProperty(mutatedBody(TOOLS()[tool]!), async (args) => {
        const result = await mcp(call(tool, args));
        const problem = mcpProblem(result);
        if (problem) throw new Error(`${tool} ${call(tool, args).slice(0, 300)}: ${problem}`);
      }),
      { numRuns: RUNS_PER_TOOL },
    );
  });

  it('hostile JSON-RPC envelopes: unknown tools and methods, wrong ids, batches', async () => {
    const envelope = fc.oneof(
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: hostileValue,
        method: fc.constant('tools/call'),
        params: hostileValue,
      }),
      fc.record({ jsonrpc: hostileValue, id: fc.nat(), method: fc.oneof(fc.string(), hostileValue) }),
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: fc.nat(),
        method: fc.constant('tools/call'),
        params: fc.record({ name: fc.oneof(fc.string(), hostileValue), arguments: hostileValue }),
      }),
      fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.constant('tools/list') }), {
        maxLength: 3,
      }),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(envelope, async (body) => {
        const result = await mcp(serialize(body));
        // Notifications and responses get 202 without a body.
        if (result.status === 202) return;
        const problem = mcpProblem(result);
        if (problem) throw new Error(`${serialize(body).slice(0, 300)}: ${problem}`);
      }),
      { numRuns: runs(150) },
    );
  });
});
