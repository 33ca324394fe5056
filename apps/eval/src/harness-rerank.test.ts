import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  chatCompletionAnswer,
  type LoopbackServer,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ARGS, type EvalArgs } from './args.js';
import { type HarnessOutcome, runLocomoEval } from './harness.js';
import { conversationTurns, locomoFileSchema, turnText } from './locomo-data.js';
import { locomoFixture } from './locomo-fixture.test.helper.js';
import type { MeasuredRun } from './summary-schema.js';

const silent = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

function userPrompt(body: unknown): string {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n');
}

/** Candidate count of a listwise prompt: one `{"rank":n,...}` line per candidate. */
function candidateCount(body: unknown): number {
  return (userPrompt(body).match(/\{"rank":\d+/g) ?? []).length;
}

// The model is a loopback server speaking the OpenAI protocol; the harness reaches it only through
// the runtime's environment settings (generation model + base URL), as it would a real one.
describe('runLocomoEval with reranking configured through the runtime environment', () => {
  let dir: string;
  let server: LoopbackServer;
  let args: EvalArgs;
  let outcome: HarnessOutcome;

  beforeAll(async () => {
    // A "model" that returns the pool reversed: the last candidate first.
    server = await startLoopbackServer((request, response) => {
      const count = candidateCount(request.body);
      const ranks = Array.from({ length: count }, (_, index) => count - index);
      chatCompletionAnswer(response, request, JSON.stringify({ ranks }), {
        prompt_tokens: 100,
        completion_tokens: 10,
        total_tokens: 110,
      });
    });
    dir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-rerank-test-'));
    const data = path.join(dir, 'fixture.json');
    await writeFile(data, JSON.stringify([locomoFixture()]));
    args = {
      ...DEFAULT_ARGS,
      data,
      out: path.join(dir, 'out'),
      modes: ['hybrid'],
      rerank: 'listwise',
      topK: 5,
      finalK: 3,
      generationModel: 'openai-compatible:fake-ranker',
      baseUrl: server.baseUrl,
    };
    outcome = await runLocomoEval(args, { env: {}, stream: silent });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('measures the rerank run over the same coarse pool as the plain run', () => {
    expect(outcome.failed).toBe(false);
    const rerank = outcome.summary.runs.find(
      (run): run is MeasuredRun => run.measured && run.rerank === 'listwise',
    )!;
    expect(rerank).toMatchObject({
      system: 'powercontext',
      mode: 'hybrid',
      top_k: 5,
      final_k: 3,
      questions: 3,
    });
    // coarse from the trace's pool of top_k = 5: recall up to @5, nothing above.
    expect(Object.keys(rerank.coarse)).toEqual(['recall_at_1', 'recall_at_5', 'mrr', 'no_hits']);
    expect(Object.keys(rerank.final)).toEqual(['recall_at_1', 'mrr', 'no_hits']);
    expect(rerank.latency_ms?.rerank_p50).toBeGreaterThan(0);
    expect(rerank.usage).toMatchObject({ requests: 3, calls: 3, total_tokens: 330 });
    expect(server.requests).toHaveLength(3);
    const oracle = outcome.summary.runs.find(
      (run): run is MeasuredRun => run.measured && run.system === 'oracle',
    )!;
    // The trace's pool is the oracle's pool (a plain search with limit top_k): same coarse metrics.
    expect(rerank.coarse).toEqual(oracle.coarse);
  });

  it('scores the returned (reversed) hits as final, and the pool in coarse order as coarse', () => {
    const raw = locomoFileSchema.parse([locomoFixture()])[0]!;
    const turnOf = new Map(conversationTurns(raw).map((turn) => [turnText(turn), turn.id]));
    let largestPool = 0;
    for (const request of server.requests) {
      const prompt = userPrompt(request.body);
      const query = JSON.parse(/^Query: (.*)$/m.exec(prompt)![1]!) as string;
      const pool = [...prompt.matchAll(/^\s*(\{"rank":.*\})\s*,?$/gm)].map(
        (match) => turnOf.get((JSON.parse(match[1]!) as { text: string }).text)!,
      );
      const question = raw.qa.findIndex((qa) => qa.question === query);
      expect(question).toBeGreaterThanOrEqual(0);
      expect(pool.length).toBeGreaterThan(0);
      expect(pool).not.toContain(undefined);
      largestPool = Math.max(largestPool, pool.length);
      const record = outcome.questions.find((item) => item.qa_index === question)!;
      const covered = (turnId: string) => (record.evidence.includes(turnId) ? 1 / record.evidence.length : 0);
      const run = record.runs['powercontext hybrid + listwise']!;
      expect(run.final.recall_at_1).toBeCloseTo(covered(pool.at(-1)!), 4);
      expect(run.coarse.recall_at_1).toBeCloseTo(covered(pool[0]!), 4);
    }
    // Some pool has more than one candidate, so reversing it changed what final holds.
    expect(largestPool).toBeGreaterThan(1);
  });
});
