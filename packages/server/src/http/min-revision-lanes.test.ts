import { createRuntime, type Runtime, type ScopedMemory } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, parseApiKeys } from '../auth/api-keys.js';
import { KeyAdmission } from '../auth/key-admission.js';
import { RateLimiter } from '../auth/rate-limiter.js';
import { SearchLanes } from '../auth/search-lanes.js';
import { handleMcpHttp } from '../mcp/http.js';
import type { ErrorBody } from '../testing-support/http-call.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';

// Issue 28: a search waiting for its min_revision to reach a read replica held one of the process's
// search lanes for the whole wait, so one key's waits stalled every other tenant's searches. The
// replica here is the primary's own database named again as a read database: a revision never
// written is never visible on it, so a read asking for one waits out its whole bound.

const WAIT_MS = 6_000;
const LANES = 2;
const WAITER = 'waiter-secret';
const OTHER = 'other-secret';

let database: TestDatabase;
let runtime: Runtime;
/** Searches that reached the runtime, by scope: a min_revision wait begins there. */
const searchesBegun: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  runtime = await createRuntime({
    env: {
      POWERCONTEXT_SERVER_DATABASE_URL: database.connectionString,
      POWERCONTEXT_SERVER_READ_DATABASE_URL: database.connectionString,
      POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS: String(WAIT_MS),
      POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK: 'wait',
    },
  });
  await runtime.memory.forScope('waiting').remember({ entries: [{ text: 'harbour schedule for monday' }] });
  await runtime.memory.forScope('busy').remember({ entries: [{ text: 'harbour schedule for tuesday' }] });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await database?.drop();
});

/** The runtime, telling `searchesBegun` when a search reaches it. */
function watched(inner: Runtime): Runtime {
  const forScope = (scopeId: string): ScopedMemory => {
    const memory = inner.memory.forScope(scopeId);
    return {
      ...memory,
      search: (request, options) => {
        searchesBegun.push(scopeId);
        return memory.search(request, options);
      },
    };
  };
  return { ...inner, memory: { ...inner.memory, forScope } };
}

function keyedApp() {
  const keys = parseApiKeys(
    JSON.stringify({
      keys: [
        {
          id: 'waiter',
          sha256: hashApiKey(WAITER),
          scopes: ['waiting'],
          permissions: ['read'],
          max_in_flight: 2,
        },
        { id: 'other', sha256: hashApiKey(OTHER), scopes: ['busy'], permissions: ['read'] },
      ],
    }),
    'lane test keys',
  );
  return createTestApp(watched(runtime), {
    auth: { kind: 'keys', keys },
    requestTimeoutMs: 60_000,
    mcp: handleMcpHttp,
    admission: new KeyAdmission(new RateLimiter(), new SearchLanes(LANES)),
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

type Transport = 'http' | 'mcp';

interface Outcome {
  /** `ok`, or the error code of the answer (an `isError` result's code over MCP). */
  code: string;
  text: string;
}

/** One search over HTTP or as an MCP tool call, reduced to its outcome. */
function searcher(transport: Transport) {
  const { call } = keyedApp();
  return async (scopeId: string, key: string, minRevision?: number): Promise<Outcome> => {
    const args = {
      scope_id: scopeId,
      query: 'harbour schedule',
      mode: 'fts',
      ...(minRevision === undefined ? {} : { min_revision: minRevision }),
    };
    if (transport === 'http') {
      const answer = await call('/v1/memory/search', args, { key });
      return { code: answer.status === 200 ? 'ok' : answer.json.error.code, text: answer.text };
    }
    const message = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_memory', arguments: args },
    };
    const answer = await call<{ result?: { isError?: boolean; content: { text: string }[] } }>(
      '/mcp',
      message,
      {
        key,
        headers: { accept: 'application/json, text/event-stream' },
      },
    );
    const result = answer.json.result;
    if (answer.status !== 200 || !result) return { code: `http ${answer.status}`, text: answer.text };
    return {
      code: result.isError ? (JSON.parse(result.content[0]!.text) as ErrorBody).error.code : 'ok',
      text: answer.text,
    };
  };
}

describe('a min_revision wait and the search lanes (issue 28)', () => {
  it.each<Transport>(['http', 'mcp'])(
    'takes no lane (%s): another key searches while one key waits with as many searches as there are lanes',
    async (transport) => {
      const search = searcher(transport);
      // Warm the other key's path (connection, prepared statements), so what follows is about lanes only.
      expect((await search('busy', OTHER)).code).toBe('ok');
      searchesBegun.length = 0;

      const settled: string[] = [];
      const unreachable = 1_000_000;
      const waits = Array.from({ length: LANES }, (_, index) =>
        search('waiting', WAITER, unreachable).then((outcome) => {
          settled.push(`wait ${index + 1}`);
          return outcome;
        }),
      );
      await until(() => searchesBegun.filter((scope) => scope === 'waiting').length === LANES);

      // The waits count against the waiting key's own in-flight slots: it has none left.
      const third = await search('waiting', WAITER, unreachable);
      expect(third.code, third.text).toBe('rate_limited');

      const other = await search('busy', OTHER);
      settled.push('other key');
      expect(other.code, other.text).toBe('ok');
      expect(
        settled,
        `the other key's search must answer while the min_revision waits still wait (${WAIT_MS} ms)`,
      ).toEqual(['other key']);

      // The waits are bounded as before: a revision no database has is 409 revision_not_visible.
      for (const outcome of await Promise.all(waits)) {
        expect(outcome.code, outcome.text).toBe('revision_not_visible');
      }
    },
    60_000,
  );

  it('searches in a lane once the revision it waited for arrives', async () => {
    const search = searcher('http');
    const memory = runtime.memory.forScope('waiting');
    const head = (await memory.list()).memory?.revision ?? 0;
    searchesBegun.length = 0;
    const waiting = search('waiting', WAITER, head + 1);
    await until(() => searchesBegun.length === 1);
    await memory.remember({ entries: [{ text: 'harbour schedule for wednesday' }] });
    const outcome = await waiting;
    expect(outcome.code, outcome.text).toBe('ok');
    const body = JSON.parse(outcome.text) as { memory: { revision: number }; hits: unknown[] };
    expect(body.memory.revision).toBe(head + 1);
    expect(body.hits).toHaveLength(2);
  }, 60_000);
});
