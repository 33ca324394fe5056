import {
  chatCompletionAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../testing-support/server-process.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';
import type { CapabilitiesResponse, SearchResponse } from '../testing-support/wire-types.js';

/**
 * Real server processes whose reranker talks to a loopback OpenAI-protocol model server. Each test
 * sets how the model behaves; the server maps every failure to its status, code and retry flag.
 */
type Behaviour = 'select' | 'fail' | 'garbage' | 'hang' | 'slow-select';
let behaviour: Behaviour = 'select';
const respond: Responder = (request, response) => {
  // Only the listwise server is ever asked to succeed: it reads a list of ranks.
  const answer = () => chatCompletionAnswer(response, request, '{"ranks":[2,1]}');
  switch (behaviour) {
    case 'select':
      return answer();
    case 'slow-select':
      setTimeout(answer, 300);
      return;
    case 'fail':
      return sendJson(response, 500, { error: { message: 'overloaded', type: 'server_error' } });
    case 'garbage':
      return chatCompletionAnswer(response, request, 'the best ones are two and one');
    case 'hang':
      return;
  }
};

const TEXTS = ['Deploys happen on Fridays', 'The deploy review is on Thursday', 'Deploy freeze in December'];
const search = { scope_id: 'ops', query: 'deploy', limit: 2, mode: 'fts' };

let model: LoopbackServer;
const databases: TestDatabase[] = [];
let listwise: ServerProcess;
let decision: ServerProcess;

beforeAll(async () => {
  model = await startLoopbackServer(respond);
  const [one, two] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  databases.push(one!, two!);
  const common = {
    POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
    POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: 'openai-compatible:test-model',
    POWERCONTEXT_SERVER_INFERENCE_BASE_URL: model.baseUrl,
    POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '1',
  };
  [listwise, decision] = await Promise.all([
    // Listwise: the model's own timeout (2 s) comes long before the stage deadline; one slot, no queue.
    // The timeout leaves room for a loaded machine: at 0.5 s the first, successful, call could time out.
    startServerProcess({
      args: ['--database-url', one!.connectionString],
      env: {
        ...common,
        POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '2',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MAX_IN_FLIGHT: '1',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_QUEUE_TIMEOUT_MS: '0',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: '10000',
      },
    }),
    // Decision: a generous model timeout, a short stage deadline.
    startServerProcess({
      args: ['--database-url', two!.connectionString],
      env: {
        ...common,
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'decision',
        POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '10',
        POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: '400',
      },
    }),
  ]);
  for (const server of [listwise, decision]) {
    const written = await server.call('/v1/memory/remember', {
      scope_id: 'ops',
      entries: TEXTS.map((text) => ({ text })),
    });
    expect(written.status).toBe(200);
  }
});

afterAll(async () => {
  await Promise.all([listwise?.stop(), decision?.stop()]);
  await Promise.all(databases.map((database) => database.drop()));
  await model?.close();
});

/** Waits until the model server has received `count` requests in total. */
async function modelReceived(count: number) {
  while (model.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('listwise reranking behind HTTP v1', () => {
  it('reports the rerank policy in capabilities and explains which hits the reranker chose', async () => {
    behaviour = 'select';
    const capabilities = await listwise.call<CapabilitiesResponse>('/v1/capabilities');
    expect(capabilities.json.rerank).toEqual({
      policy_id: 'powercontext.memory.rerank.listwise.v1',
      candidate_limit: 30,
      failure_policy: 'fail_closed',
    });
    const plain = await listwise.call<SearchResponse>('/v1/memory/search', search);
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('explain');
    const explained = await listwise.call<SearchResponse>('/v1/memory/search', {
      ...search,
      explain: 'redacted',
    });
    const { explain, ...rest } = explained.json;
    expect(rest).toEqual(plain.json);
    expect(explain?.rerank).toEqual({
      policy_id: 'powercontext.memory.rerank.listwise.v1',
      pool_size: 3,
      used_fallback: false,
      degraded_reason: null,
    });
    // The model picked coarse ranks 2 and 1, in that order; the third candidate is not described.
    expect(explain?.hits.map((hit) => [hit.coarse_rank, hit.reranker_selected])).toEqual([
      [2, true],
      [1, true],
    ]);
    const unreturned = TEXTS.find((text) => !plain.json.hits.some((hit) => hit.text === text))!;
    expect(explained.text).not.toContain(unreturned);
  });

  it.each([
    ['fail', 503, 'inference_unavailable', true],
    ['garbage', 502, 'inference_invalid_output', false],
    ['hang', 503, 'inference_timeout', true],
  ] as const)('answers a model that does "%s" with %i %s', async (mode, status, code, retryable) => {
    behaviour = mode;
    const response = await listwise.call('/v1/memory/search', search);
    expect(response.status).toBe(status);
    expect(response.json.error).toMatchObject({ code, retryable });
    expect(response.headers.get('retry-after')).toBe(retryable ? '1' : null);
  });

  it('answers 503 rerank_saturated with Retry-After while the only rerank slot is busy', async () => {
    behaviour = 'hang';
    const before = model.requests.length;
    const holding = listwise.call('/v1/memory/search', search);
    await modelReceived(before + 1);
    const refused = await listwise.call('/v1/memory/search', search);
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ code: 'rerank_saturated', retryable: true });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await holding).json.error.code).toBe('inference_timeout');
  });
});

describe('decision reranking behind HTTP v1', () => {
  it('answers 503 rerank_failure when the decision backend fails', async () => {
    behaviour = 'fail';
    const response = await decision.call('/v1/memory/search', search);
    expect(response.status).toBe(503);
    expect(response.json.error).toMatchObject({ code: 'rerank_failure', retryable: true });
  });

  it('answers 503 rerank_deadline when the stage runs past its deadline', async () => {
    behaviour = 'hang';
    const response = await decision.call('/v1/memory/search', search);
    expect(response.status).toBe(503);
    expect(response.json.error).toMatchObject({ code: 'rerank_deadline', retryable: true });
    expect(response.headers.get('retry-after')).toBe('1');
  });
});

describe('graceful shutdown', () => {
  it('finishes the search in flight on SIGTERM, then exits 0', async () => {
    behaviour = 'slow-select';
    const before = model.requests.length;
    const inFlight = listwise.call<SearchResponse>('/v1/memory/search', search);
    await modelReceived(before + 1);
    const exit = listwise.stop('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.json.hits).toHaveLength(2);
    expect(await exit).toBe(0);
    await expect(fetch(`${listwise.url}/healthz`)).rejects.toThrow();
  });
});
