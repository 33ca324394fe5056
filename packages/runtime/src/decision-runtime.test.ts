import { createLlmDecisionModel, type DecisionModel, withFailOpen } from '@powercontext/decision-model';
import {
  chatCompletionAnswer,
  type LoopbackServer,
  type Responder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import type { LogFields, Logger } from '@powercontext/memory-core';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from './create-runtime.js';
import { MODEL_CALLABLE_TOOLS } from './tool-catalog.js';

const TURNS = [
  'Priya: The council approved the Alder Street lot for a community garden.',
  'Tomás: I will build twelve raised beds from reclaimed larch.',
  'Priya: The topsoil delivery cost 320 euros in April.',
  'Tomás: Slugs ate the lettuce seedlings in bed four.',
];

let server: LoopbackServer | undefined;
const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await server?.close();
  server = undefined;
});

function recordingLogger() {
  const lines: { level: string; event: string; fields: LogFields | undefined }[] = [];
  const record = (level: string) => (event: string, fields?: LogFields) =>
    lines.push({ level, event, fields });
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  return { logger, lines };
}

/** A loopback decision backend: "yes" when the subject mentions `keep`, else "no". */
function decideBy(keep: RegExp): Responder {
  return (request, response) => {
    const body = request.body as { messages: { role: string; content: string }[] };
    const user = body.messages.find((message) => message.role === 'user')!.content;
    const subject = (JSON.parse(user.slice(user.indexOf('{'))) as { subject: string }).subject;
    chatCompletionAnswer(response, request, JSON.stringify({ outcome: keep.test(subject) ? 'yes' : 'no' }));
  };
}
const fail500: Responder = (_request, response) =>
  sendJson(response, 500, { error: { message: 'down', type: 'server_error' } });

async function start(respond: Responder, env: Record<string, string>, extra: { logger?: Logger } = {}) {
  server = await startLoopbackServer(respond);
  const runtime = await createRuntime({
    store: new InMemoryMemoryStore(),
    env: {
      POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL: 'openai-compatible:decider',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: server.baseUrl,
      POWERCONTEXT_SERVER_INFERENCE_DECISION_MAX_REQUESTS: '1',
      POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS: '2',
      ...env,
    },
    ...extra,
  });
  runtimes.push(runtime);
  return { runtime, memory: runtime.memory.forScope('scope-1') };
}

const DECISION_RERANK = {
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
  POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'decision',
};

describe('decision reranking composed from the environment, over real HTTP', () => {
  it('keeps the candidates the backend says yes to, in coarse order', async () => {
    const { runtime, memory } = await start(decideBy(/Tomás/), DECISION_RERANK);
    expect(runtime.capabilities().rerank?.policyId).toBe('powercontext.memory.rerank.decision.v1');
    await memory.remember({ entries: TURNS.map((text) => ({ text })) });
    const result = await memory.search({ query: 'Priya Tomás', limit: 5, mode: 'fts' });
    const trace = result.trace!;
    expect(result.hits.every((hit) => hit.text.startsWith('Tomás'))).toBe(true);
    expect(trace.selectedRanks).toEqual([...trace.selectedRanks].sort((a, b) => a - b));
    expect(trace).toMatchObject({
      discardedRankCount: 0,
      usedFallback: false,
      usage: { calls: 4, requests: 4 },
    });
  });

  it('fails the rerank closed on a backend outage while the advisory gate on the same backend degrades', async () => {
    const { lines, logger } = recordingLogger();
    const { memory } = await start(
      fail500,
      { ...DECISION_RERANK, POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'advisory' },
      { logger },
    );
    const written = await memory.remember({ entries: [{ text: TURNS[0]! }] });
    const second = await memory.remember({
      entries: [{ text: 'Priya: The council approved the garden lot.' }],
    });
    expect(written.entries[0]!.status).toBe('created');
    expect(second.advice).toEqual([
      expect.objectContaining({
        entryIndex: 0,
        outcome: 'abstain',
        usedFallback: true,
        decisionKind: 'memory.write_gate',
      }),
    ]);
    expect(lines.some((line) => line.event === 'decision.fail_open')).toBe(true);
    await expect(memory.search({ query: 'Alder Street garden', limit: 2 })).rejects.toMatchObject({
      code: 'rerank_failure',
    });
  });

  it('under the stage-level fail_open policy, a decision outage degrades to coarse ranks with reason rerank_failure', async () => {
    const { memory } = await start(fail500, {
      ...DECISION_RERANK,
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY: 'fail_open',
    });
    await memory.remember({ entries: TURNS.map((text) => ({ text })) });
    const result = await memory.search({ query: 'garden beds', limit: 2 });
    expect(result.trace?.degraded).toEqual({ reason: 'rerank_failure', errorCode: 'rerank_failure' });
    expect(result.hits).toEqual(result.trace!.candidates.slice(0, 2));
  });

  it('times out the rerank role (closed) and the gate (open) on a silent backend', async () => {
    const { memory } = await start(() => {}, {
      ...DECISION_RERANK,
      POWERCONTEXT_SERVER_INFERENCE_DECISION_TIMEOUT_SECONDS: '0.3',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'advisory',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_TIMEOUT_MS: '200',
    });
    await memory.remember({ entries: [{ text: TURNS[0]! }] });
    const started = performance.now();
    const gated = await memory.remember({
      entries: [{ text: 'Priya: The council approved the Alder Street lot again.' }],
    });
    expect(gated.entries[0]!.status).toBe('created');
    expect(gated.advice?.[0]).toMatchObject({ outcome: 'abstain', usedFallback: true });
    expect(performance.now() - started).toBeLessThan(3_000);
    await expect(memory.search({ query: 'Alder Street garden', limit: 2 })).rejects.toMatchObject({
      code: 'rerank_failure',
    });
  });

  it('propagates the caller’s cancellation through the decision reranker', async () => {
    const { memory } = await start(() => {}, DECISION_RERANK);
    await memory.remember({ entries: TURNS.map((text) => ({ text })) });
    const controller = new AbortController();
    const searching = memory.search({ query: 'garden', limit: 2 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client left')), 50);
    await expect(searching).rejects.toThrow('client left');
  });
});

describe('the write gate, an advisory consumer', () => {
  it('disabled: no decision is asked and no advice returned', async () => {
    const { memory } = await start(decideBy(/garden/), {});
    await memory.remember({ entries: [{ text: TURNS[0]! }] });
    const result = await memory.remember({
      entries: [{ text: 'Priya: The garden lot was approved by the council.' }],
    });
    expect(result.advice).toBeUndefined();
    expect(server!.requests).toHaveLength(0);
  });

  it('shadow: logs kind, outcome, policy and entry ids, never text, and returns no advice', async () => {
    const { lines, logger } = recordingLogger();
    const { memory } = await start(
      decideBy(/garden/),
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'shadow' },
      { logger },
    );
    const first = await memory.remember({ entries: [{ text: TURNS[0]! }] });
    const result = await memory.remember({
      entries: [{ text: 'Priya: The garden lot was approved by the council.' }],
    });
    expect(result.advice).toBeUndefined();
    const advice = lines.find((line) => line.event === 'memory.write_advice');
    expect(advice?.fields).toMatchObject({
      mode: 'shadow',
      decisionKind: 'memory.write_gate',
      policyId: 'powercontext.decision.evaluate.v1',
      outcome: 'yes',
      comparedEntryIds: first.entries[0]!.entryId,
    });
    expect(JSON.stringify(lines)).not.toMatch(/council|garden|Priya/);
  });

  it('disabled and shadow with the backend down: writes are acknowledged and nothing is returned', async () => {
    const disabled = await start(fail500, {});
    await disabled.memory.remember({ entries: [{ text: TURNS[0]! }] });
    const plain = await disabled.memory.remember({
      entries: [{ text: 'Priya: The council approved the garden lot.' }],
    });
    expect(plain.entries[0]!.status).toBe('created');
    expect(server!.requests).toHaveLength(0);
    await disabled.runtime.close();
    runtimes.splice(runtimes.indexOf(disabled.runtime), 1);
    await server!.close();

    const { lines, logger } = recordingLogger();
    const shadow = await start(
      fail500,
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'shadow' },
      { logger },
    );
    await shadow.memory.remember({ entries: [{ text: TURNS[0]! }] });
    const result = await shadow.memory.remember({
      entries: [{ text: 'Priya: The council approved the garden lot.' }],
    });
    expect(result.entries[0]!.status).toBe('created');
    expect(result.advice).toBeUndefined();
    expect(lines.find((line) => line.event === 'memory.write_advice')?.fields).toMatchObject({
      mode: 'shadow',
      outcome: 'abstain',
      usedFallback: true,
    });
  });

  it('advisory: annotates the write result with the backend up', async () => {
    const { memory } = await start(decideBy(/garden/), {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'advisory',
    });
    await memory.remember({ entries: [{ text: TURNS[0]! }] });
    const result = await memory.remember({
      entries: [
        { text: 'Priya: The garden lot was approved by the council.' },
        { text: 'Tomás: Alder Street beds are larch.' },
      ],
    });
    expect(result.entries.map((entry) => entry.status)).toEqual(['created', 'created']);
    expect(result.advice).toEqual([
      expect.objectContaining({ entryIndex: 0, outcome: 'yes', usedFallback: false }),
      expect.objectContaining({ entryIndex: 1, outcome: 'no', usedFallback: false }),
    ]);
  });
});

describe('decision composition', () => {
  it('refuses to start decision reranking or the gate without a usable backend', async () => {
    await expect(
      createRuntime({ store: new InMemoryMemoryStore(), env: DECISION_RERANK }),
    ).rejects.toMatchObject({
      code: 'configuration_error',
      setting: 'POWERCONTEXT_SERVER_INFERENCE_DECISION_MODEL',
    });
    await expect(
      createRuntime({
        store: new InMemoryMemoryStore(),
        env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'shadow' },
      }),
    ).rejects.toMatchObject({
      code: 'configuration_error',
      setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE',
    });
  });

  it('refuses to start when the rerank role would receive a fail-open wrapped handle', async () => {
    const raw: DecisionModel = createLlmDecisionModel({
      generator: {
        generate: async () => ({ output: { outcome: 'yes' } as never, usage: { requests: 1, calls: 1 } }),
      },
    });
    await expect(
      createRuntime({
        store: new InMemoryMemoryStore(),
        env: DECISION_RERANK,
        decisionModel: withFailOpen(raw, {}),
      }),
    ).rejects.toMatchObject({ code: 'configuration_error', setting: 'decision role memory.rerank' });
    const fine = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: DECISION_RERANK,
      decisionModel: raw,
    });
    runtimes.push(fine);
    expect(fine.capabilities().rerank?.policyId).toBe('powercontext.memory.rerank.decision.v1');
  });

  it('ignores the policy selector, with a warning, while reranking is disabled', async () => {
    const { lines, logger } = recordingLogger();
    const runtime = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_POLICY: 'decision' },
      logger,
    });
    runtimes.push(runtime);
    expect(runtime.capabilities().rerank).toBeNull();
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', event: 'runtime.config.rerank_policy_ignored' }),
    );
  });

  it('an injected reranker overrides the selector', async () => {
    const runtime = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: DECISION_RERANK,
      reranker: {
        policyId: 'app.custom.v1',
        rerank: async () => ({
          selectedRanks: [1],
          usage: { requests: 0, calls: 0 },
          discardedRankCount: 0,
          usedFallback: false,
        }),
      },
    });
    runtimes.push(runtime);
    expect(runtime.capabilities().rerank?.policyId).toBe('app.custom.v1');
  });

  it('never offers the decision model as a model-callable tool', async () => {
    const names = MODEL_CALLABLE_TOOLS.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    for (const tool of MODEL_CALLABLE_TOOLS) {
      expect(`${tool.name} ${tool.description}`).not.toMatch(/decision|evaluate|yes\/no/i);
    }
    const runtime = await createRuntime({ store: new InMemoryMemoryStore(), env: {} });
    runtimes.push(runtime);
    expect(Object.keys(runtime).sort()).toEqual(['capabilities', 'close', 'config', 'memory', 'status']);
    expect(Object.keys(runtime.memory).sort()).toEqual([
      'forScope',
      'lexicalIndexState',
      'prepareContext',
      'reembed',
      'reindex',
      'scopes',
      'search',
    ]);
  });
});
