import type {
  DecisionModel,
  DecisionOutcome,
  DecisionRequest,
  DecisionResult,
  EvaluateOptions,
} from '@powercontext/decision-model';
import {
  type LogFields,
  type MemoryHit,
  type MemoryRerankDecision,
  PowerContextError,
  RerankFailureError,
  RerankOutOfBoundsError,
  type RerankUsage,
} from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createDecisionMemoryReranker, type DecisionRerankerOptions } from './decision-reranker.js';
import { DECISION_RERANK_KIND, DECISION_RERANK_POLICY_ID, DECISION_RERANK_QUESTION } from './policy.js';

// ---------------------------------------------------------------------------------------------------
// A scripted decision model
// ---------------------------------------------------------------------------------------------------

/**
 * What the fake does for one subject. It first waits (for `gate`, for `ticks` event-loop turns, or
 * forever with `hang`), honouring its abort signal meanwhile; then it answers or throws.
 */
interface Step {
  outcome?: DecisionOutcome | 'maybe';
  usage?: RerankUsage;
  usedFallback?: boolean;
  /** Thrown instead of answering. */
  error?: unknown;
  gate?: Promise<void>;
  ticks?: number;
  hang?: boolean;
  /** When aborted, reject with an error carrying this usage (requests already sent) instead of the reason. */
  abortUsage?: RerankUsage;
}

interface CallRecord {
  request: DecisionRequest;
  signal: AbortSignal;
  rank: number;
  settled: boolean;
  abortedWhilePending: boolean;
}

const ONE_REQUEST: RerankUsage = { requests: 1, calls: 1 };

/** Answers per subject text (the candidate text); records every call, its signal and whether it was aborted. */
class ScriptedDecisionModel implements DecisionModel {
  readonly policyId = 'test.decision.scripted.v1';
  readonly calls: CallRecord[] = [];
  maxPending = 0;
  readonly #script: (subject: string) => Step;

  constructor(script: (subject: string) => Step) {
    this.#script = script;
  }

  get pending(): number {
    return this.calls.filter((call) => !call.settled).length;
  }

  async evaluate(request: DecisionRequest, options?: EvaluateOptions): Promise<DecisionResult> {
    const signal = options?.signal ?? new AbortController().signal;
    const record: CallRecord = {
      request,
      signal,
      rank: rankOf(request.subject),
      settled: false,
      abortedWhilePending: false,
    };
    this.calls.push(record);
    this.maxPending = Math.max(this.maxPending, this.pending);
    const step = this.#script(request.subject);
    try {
      await waitFor(step, signal, record);
      if ('error' in step) throw step.error;
      return {
        outcome: (step.outcome ?? 'yes') as DecisionOutcome,
        policyId: this.policyId,
        usage: step.usage ?? ONE_REQUEST,
        usedFallback: step.usedFallback ?? false,
      };
    } finally {
      record.settled = true;
    }
  }
}

function waitFor(step: Step, signal: AbortSignal, record: CallRecord): Promise<void> {
  if (step.gate === undefined && !step.ticks && !step.hang) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      record.abortedWhilePending = true;
      reject(
        step.abortUsage
          ? Object.assign(new Error('call aborted'), { usage: step.abortUsage, cause: signal.reason })
          : signal.reason,
      );
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    if (step.gate !== undefined) void step.gate.then(done);
    else if (step.ticks) void turns(step.ticks).then(done);
  });
}

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

// ---------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------

const textOf = (rank: number) => `memory text ${rank}`;
const rankOf = (subject: string) => Number(subject.slice('memory text '.length));

function hits(count: number): MemoryHit[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `entry-${index + 1}`;
    return {
      citation: {
        scopeId: 'scope',
        artifactId: 'artifact',
        revision: 1,
        entryId: id,
        entryVersionId: `${id}-v1`,
      },
      entry: { entryId: id, entryVersionId: `${id}-v1` } as MemoryHit['entry'],
      text: textOf(index + 1),
      score: 1 / (index + 1),
      matchedBy: ['fts'],
      channelRanks: { fts: index + 1 },
      channelScores: { fts: 10 - index },
    };
  });
}

/** A model answering `steps[rank - 1]` for the candidate at that rank (an outcome string is a plain answer). */
function scripted(steps: readonly (Step | DecisionOutcome)[]): ScriptedDecisionModel {
  return new ScriptedDecisionModel((subject) => {
    const step = steps[rankOf(subject) - 1];
    if (step === undefined) throw new Error(`no scripted step for ${subject}`);
    return typeof step === 'string' ? { outcome: step } : step;
  });
}

function reranker(decisionModel: DecisionModel, options: Partial<DecisionRerankerOptions> = {}) {
  return createDecisionMemoryReranker({ decisionModel, ...options });
}

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected the rerank to fail');
    },
    (error: unknown) => error,
  );
}

// ---------------------------------------------------------------------------------------------------

describe('createDecisionMemoryReranker', () => {
  it('exports the policy constants and carries the policy id', () => {
    expect(DECISION_RERANK_POLICY_ID).toBe('powercontext.memory.rerank.decision.v1');
    expect(DECISION_RERANK_KIND).toBe('memory.rerank');
    expect(DECISION_RERANK_QUESTION).toMatch(/\?$/);
    expect(reranker(scripted([])).policyId).toBe(DECISION_RERANK_POLICY_ID);
  });

  it('asks one narrow question per candidate: kind, fixed question, candidate text as subject, query as evidence', async () => {
    const model = scripted(['no', 'no', 'yes']);
    const caller = new AbortController();
    await reranker(model).rerank('who moved to Lisbon?', hits(3), 1, { signal: caller.signal });
    expect(model.calls.map((call) => call.request)).toEqual(
      [1, 2, 3].map((rank) => ({
        decisionKind: 'memory.rerank',
        question: DECISION_RERANK_QUESTION,
        subject: textOf(rank),
        evidence: ['who moved to Lisbon?'],
      })),
    );
    // Each call gets its own signal, linked to (not equal to) the caller's.
    const signals = new Set(model.calls.map((call) => call.signal));
    expect(signals.size).toBe(3);
    expect(signals.has(caller.signal)).toBe(false);
  });

  describe('the sequential walk', () => {
    it('keeps yes and abstain in coarse order and stops at the limit-th keep', async () => {
      const model = scripted(['no', 'yes', 'no', 'abstain', 'yes', 'yes']);
      const decision = await reranker(model).rerank('q', hits(6), 2);
      expect(decision).toEqual<MemoryRerankDecision>({
        selectedRanks: [2, 4],
        usage: { requests: 4, calls: 4 },
        discardedRankCount: 0,
        usedFallback: false,
        ignoredAfterLimitCount: 0,
      });
      expect(model.calls.map((call) => call.rank)).toEqual([1, 2, 3, 4]);
    });

    it('drops abstain with a keep set of yes only', async () => {
      const model = scripted(['no', 'yes', 'no', 'abstain', 'yes', 'yes']);
      const decision = await reranker(model, { keepOutcomes: ['yes'] }).rerank('q', hits(6), 2);
      expect(decision.selectedRanks).toEqual([2, 5]);
      expect(decision.usage.calls).toBe(5);
    });

    it('keeps order with a keep set given in another order', async () => {
      const model = scripted(['abstain', 'yes', 'no']);
      const decision = await reranker(model, { keepOutcomes: ['abstain', 'yes'] }).rerank('q', hits(3), 5);
      expect(decision.selectedRanks).toEqual([1, 2]);
    });

    it('never pads a sparse selection', async () => {
      const decision = await reranker(scripted(['no', 'yes', 'no'])).rerank('q', hits(3), 3);
      expect(decision).toMatchObject({ selectedRanks: [2], usedFallback: false, usage: { calls: 3 } });
    });

    it('falls back to coarse ranks 1..min(limit, n) after a full scan when nothing is kept', async () => {
      const model = scripted(['no', 'no', 'no', 'no']);
      const decision = await reranker(model).rerank('q', hits(4), 2);
      expect(decision).toEqual<MemoryRerankDecision>({
        selectedRanks: [1, 2],
        usage: { requests: 4, calls: 4 },
        discardedRankCount: 0,
        usedFallback: true,
        ignoredAfterLimitCount: 0,
      });
      const wide = await reranker(scripted(['no', 'no', 'no'])).rerank('q', hits(3), 10);
      expect(wide).toMatchObject({ selectedRanks: [1, 2, 3], usedFallback: true, usage: { calls: 3 } });
    });
  });

  describe('fail-closed', () => {
    it('fails on a result marked usedFallback, even though its outcome is abstain, and asks no further', async () => {
      const model = scripted(['no', { outcome: 'abstain', usedFallback: true }, 'yes']);
      const failure = await failureOf(reranker(model).rerank('q', hits(3), 2));
      expect(failure).toBeInstanceOf(RerankFailureError);
      expect(failure).toMatchObject({
        code: 'rerank_failure',
        retryable: true,
        policyId: DECISION_RERANK_POLICY_ID,
        usage: { requests: 2, calls: 2 },
      });
      expect(model.calls).toHaveLength(2);
    });

    it('wraps an evaluate error as rerank_failure with the cause and the usage so far', async () => {
      const timeout = Object.assign(new Error('decision timed out'), {
        code: 'inference_timeout',
        usage: { requests: 3, calls: 1 },
      });
      const model = scripted([
        { outcome: 'no', usage: { requests: 1, calls: 1, inputTokens: 40 } },
        { error: timeout },
      ]);
      const failure = await failureOf(reranker(model).rerank('q', hits(4), 2));
      expect(PowerContextError.isInstance(failure) && failure.code).toBe('rerank_failure');
      expect((failure as Error).cause).toBe(timeout);
      expect((failure as { usage?: unknown }).usage).toEqual({ requests: 4, calls: 2, inputTokens: 40 });
      expect(model.calls).toHaveLength(2);
    });

    it('wraps an evaluate that throws synchronously, with requests 0 when the error carries no usage', async () => {
      const boom = new Error('boom');
      const model: DecisionModel = {
        policyId: 'test.sync-throw',
        evaluate: () => {
          throw boom;
        },
      };
      const failure = await failureOf(reranker(model).rerank('q', hits(2), 1));
      expect(failure).toMatchObject({
        code: 'rerank_failure',
        cause: boom,
        usage: { requests: 0, calls: 1 },
      });
    });

    it('fails on an outcome outside yes/no/abstain', async () => {
      const failure = await failureOf(reranker(scripted([{ outcome: 'maybe' }])).rerank('q', hits(1), 1));
      expect(failure).toMatchObject({ code: 'rerank_failure', usage: { calls: 1 } });
    });

    it.each([1, 3])(
      "propagates the caller's abort unchanged (concurrency %i), without wrapping it",
      async (concurrency) => {
        const model = scripted([{ hang: true }, { hang: true }, { hang: true }]);
        const caller = new AbortController();
        const reason = new Error('caller went away');
        const running = reranker(model, { concurrency }).rerank('q', hits(3), 1, { signal: caller.signal });
        await turns(2);
        expect(model.calls).toHaveLength(concurrency);
        caller.abort(reason);
        const failure = await failureOf(running);
        expect(failure).toBe(reason);
        expect(model.calls.every((call) => call.signal.aborted && call.abortedWhilePending)).toBe(true);
      },
    );

    it('rethrows an already aborted signal before any call', async () => {
      const model = scripted(['yes']);
      const caller = new AbortController();
      caller.abort(new Error('too late'));
      await expect(reranker(model).rerank('q', hits(1), 1, { signal: caller.signal })).rejects.toThrow(
        'too late',
      );
      expect(model.calls).toHaveLength(0);
    });
  });

  describe('usage', () => {
    it('sums requests and known token counts over all calls', async () => {
      const model = scripted([
        {
          outcome: 'no',
          usage: { requests: 2, calls: 1, inputTokens: 100, outputTokens: 3, totalTokens: 103 },
        },
        {
          outcome: 'yes',
          usage: { requests: 1, calls: 1, inputTokens: 90, outputTokens: 2, totalTokens: 92 },
        },
      ]);
      const decision = await reranker(model).rerank('q', hits(2), 1);
      expect(decision.usage).toEqual({
        requests: 3,
        calls: 2,
        inputTokens: 190,
        outputTokens: 5,
        totalTokens: 195,
      });
    });

    it('leaves token counts undefined (not 0) when no call reported them', async () => {
      const decision = await reranker(scripted(['no', 'yes'])).rerank('q', hits(2), 1);
      expect(decision.usage).toEqual({ requests: 2, calls: 2 });
      expect(decision.usage.inputTokens).toBeUndefined();
      expect(decision.usage.outputTokens).toBeUndefined();
      expect(decision.usage.totalTokens).toBeUndefined();
      expect('totalTokens' in decision.usage).toBe(false);
    });

    it('keeps a known count when another call left it unknown', async () => {
      const model = scripted([{ outcome: 'no', usage: { requests: 1, calls: 1, outputTokens: 4 } }, 'yes']);
      const decision = await reranker(model).rerank('q', hits(2), 1);
      expect(decision.usage).toEqual({ requests: 2, calls: 2, outputTokens: 4 });
    });
  });

  describe('bounded parallelism', () => {
    it('ignores a failure beyond the stopping point, like the sequential walk, and aborts the calls there', async () => {
      const first = deferred();
      const steps: Step[] = [
        { outcome: 'yes', gate: first.promise },
        { outcome: 'no', hang: true, abortUsage: { requests: 1, calls: 1 } },
        { error: new Error('would fail the rerank if it were read') },
        { outcome: 'no', hang: true },
      ];
      const sequentialModel = scripted(steps);
      const parallelModel = scripted(steps);
      const parallel = reranker(parallelModel, { concurrency: 4 }).rerank('q', hits(4), 1);
      await turns(3);
      expect(parallelModel.calls).toHaveLength(4);
      expect(parallelModel.calls[2]!.settled).toBe(true); // rank 3 already failed
      first.resolve();
      const sequential = await reranker(sequentialModel).rerank('q', hits(4), 1);
      const decision = await parallel;

      expect(sequential).toMatchObject({ selectedRanks: [1], usedFallback: false, usage: { calls: 1 } });
      expect(decision).toMatchObject({ selectedRanks: [1], usedFallback: false });
      // Four calls were started and are all reported; rank 2's aborted call reports the request it sent,
      // rank 3's failure and rank 4's bare abort report none.
      expect(decision.usage).toEqual({ requests: 2, calls: 4 });
      expect(parallelModel.calls.map((call) => [call.rank, call.abortedWhilePending])).toEqual([
        [1, false],
        [2, true],
        [3, false],
        [4, true],
      ]);
      expect(parallelModel.calls[1]!.signal.aborted).toBe(true);
      expect(parallelModel.calls[3]!.signal.aborted).toBe(true);
      expect(parallelModel.pending).toBe(0);
    });

    it('fails on a failure at or before the stopping point, under both', async () => {
      const steps: Step[] = [
        { outcome: 'no', ticks: 3 },
        { error: new Error('backend down') },
        { outcome: 'yes' },
        { outcome: 'yes', hang: true },
      ];
      for (const concurrency of [1, 2, 4]) {
        const model = scripted(steps);
        const failure = await failureOf(reranker(model, { concurrency }).rerank('q', hits(4), 1));
        expect(failure).toMatchObject({ code: 'rerank_failure', cause: steps[1]!.error });
        expect((failure as { usage: RerankUsage }).usage.calls).toBe(model.calls.length);
        expect(model.calls.length).toBe(Math.min(4, 1 + concurrency)); // the stop (2) plus the look-ahead
        expect(model.pending).toBe(0);
      }
    });

    it('also fails on a backend-degraded result before the stopping point when run in parallel', async () => {
      const steps: Step[] = [{ outcome: 'abstain', usedFallback: true, ticks: 2 }, { outcome: 'yes' }];
      const failure = await failureOf(reranker(scripted(steps), { concurrency: 2 }).rerank('q', hits(2), 1));
      expect(failure).toMatchObject({ code: 'rerank_failure', usage: { calls: 2, requests: 2 } });
    });

    it('never has more than `concurrency` calls in flight and starts them in coarse order', async () => {
      const steps: Step[] = Array.from({ length: 12 }, (_, index) => ({
        outcome: 'no',
        ticks: (index * 7) % 5,
      }));
      const model = scripted(steps);
      const decision = await reranker(model, { concurrency: 3 }).rerank('q', hits(12), 4);
      expect(model.maxPending).toBe(3);
      expect(model.calls.map((call) => call.rank)).toEqual(
        Array.from({ length: 12 }, (_, index) => index + 1),
      );
      expect(decision).toMatchObject({
        selectedRanks: [1, 2, 3, 4],
        usedFallback: true,
        usage: { calls: 12 },
      });
    });

    it('selects, falls back and fails exactly like the sequential walk over random scripts', async () => {
      const random = mulberry32(0x5eed_0001);
      const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
      const outcomes: readonly DecisionOutcome[] = ['yes', 'no', 'abstain'];
      let parallelCallsAbove = 0;
      let abortedSeen = 0;
      let failuresBeyondStop = 0;
      let failuresAtOrBeforeStop = 0;
      for (let caseIndex = 0; caseIndex < 200; caseIndex += 1) {
        const n = int(1, 12);
        const limit = int(1, 5);
        const concurrency = int(1, 4);
        const keepOutcomes: DecisionOutcome[] = random() < 0.25 ? ['yes'] : ['yes', 'abstain'];
        const failAt = random() < 0.35 ? int(0, n - 1) : -1;
        const failKind = random() < 0.5 ? 'error' : 'degraded';
        const steps: Step[] = Array.from({ length: n }, (_, index) => {
          // Failures are often fast, so the parallel run receives some of them past the stop.
          const ticks = index === failAt && random() < 0.6 ? 0 : int(0, 5);
          if (index === failAt) {
            return failKind === 'error'
              ? {
                  error: Object.assign(new Error('scripted failure'), { usage: ONE_REQUEST }),
                  ticks,
                  abortUsage: ONE_REQUEST,
                }
              : { outcome: 'abstain', usedFallback: true, ticks, abortUsage: ONE_REQUEST };
          }
          return { outcome: outcomes[int(0, 2)]!, ticks, abortUsage: ONE_REQUEST };
        });
        const expected = walk(steps, limit, keepOutcomes);
        const label = JSON.stringify({ caseIndex, n, limit, concurrency, keepOutcomes, failAt, failKind });

        const sequentialModel = scripted(steps);
        const sequential = await run(reranker(sequentialModel, { keepOutcomes }), n, limit);
        const parallelModel = scripted(steps);
        const parallel = await run(reranker(parallelModel, { keepOutcomes, concurrency }), n, limit);

        expect(sequential.view, label).toEqual(expected.view);
        expect(parallel.view, label).toEqual(expected.view);
        expect(sequential.usage.calls, label).toBe(expected.stop);
        expect(sequentialModel.calls, label).toHaveLength(expected.stop);
        // Parallel: never fewer calls, at most concurrency - 1 past the stop, and every call reported.
        expect(parallel.usage.calls, label).toBeGreaterThanOrEqual(sequential.usage.calls);
        expect(parallel.usage.calls, label).toBeLessThanOrEqual(Math.min(n, expected.stop + concurrency - 1));
        expect(parallel.usage.calls, label).toBe(parallelModel.calls.length);
        // Every scripted call sends one request, aborted or not, and the total reports all of them.
        expect(parallel.usage.requests, label).toBe(parallelModel.calls.length);
        expect(parallelModel.pending, label).toBe(0);
        for (const call of parallelModel.calls) {
          if (call.rank <= expected.stop) expect(call.signal.aborted, label).toBe(false);
          if (call.abortedWhilePending) {
            expect(call.rank, label).toBeGreaterThan(expected.stop);
            expect(call.signal.aborted, label).toBe(true);
            abortedSeen += 1;
          }
        }
        if (parallel.usage.calls > sequential.usage.calls) parallelCallsAbove += 1;
        // A failure the parallel run actually received (not aborted) past the stop, and ignored.
        const failedCall = parallelModel.calls.find((call) => call.rank === failAt + 1);
        if (failAt >= expected.stop && failedCall && !failedCall.abortedWhilePending) failuresBeyondStop += 1;
        if ('failed' in expected.view) failuresAtOrBeforeStop += 1;
      }
      // The random cases really exercised look-ahead, aborts, failures the parallel run had to ignore, and
      // failures both runs had to report.
      expect(parallelCallsAbove).toBeGreaterThan(20);
      expect(abortedSeen).toBeGreaterThan(5);
      expect(failuresBeyondStop).toBeGreaterThan(0);
      expect(failuresAtOrBeforeStop).toBeGreaterThan(20);
    });
  });

  describe('bounds', () => {
    it.each([
      ['no candidates', 0, 5],
      ['101 candidates', 101, 5],
      ['limit 0', 5, 0],
      ['limit 51', 5, 51],
    ])('rejects %s before any decision call', async (_label, candidateCount, limit) => {
      const model = new ScriptedDecisionModel(() => ({ outcome: 'yes' }));
      const failure = await failureOf(reranker(model).rerank('q', hits(candidateCount), limit));
      expect(failure).toBeInstanceOf(RerankOutOfBoundsError);
      expect(PowerContextError.isInstance(failure) && failure.code).toBe('rerank_out_of_bounds');
      expect(model.calls).toHaveLength(0);
    });

    it('accepts the edges: 1 and 100 candidates, limits 1 and 50', async () => {
      const one = await reranker(scripted(['yes'])).rerank('q', hits(1), 1);
      expect(one.selectedRanks).toEqual([1]);
      const model = new ScriptedDecisionModel(() => ({ outcome: 'yes' }));
      const wide = await reranker(model).rerank('q', hits(100), 50);
      expect(wide.selectedRanks).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
      expect(model.calls).toHaveLength(50);
    });
  });

  describe('options', () => {
    it.each([0, -1, 1.5, Number.NaN])('rejects concurrency %s', (concurrency) => {
      expect(() => reranker(scripted([]), { concurrency })).toThrow(RangeError);
    });

    it('rejects an empty or unknown keep set', () => {
      expect(() => reranker(scripted([]), { keepOutcomes: [] })).toThrow(RangeError);
      expect(() => reranker(scripted([]), { keepOutcomes: ['maybe' as DecisionOutcome] })).toThrow(
        RangeError,
      );
    });
  });

  describe('logging', () => {
    it('writes the policy id and decision kind on every line, and never query or candidate text', async () => {
      const lines: { level: string; event: string; fields?: LogFields }[] = [];
      const logger = {
        debug: (event: string, fields?: LogFields) => lines.push({ level: 'debug', event, fields }),
        warn: (event: string, fields?: LogFields) => lines.push({ level: 'warn', event, fields }),
      };
      await reranker(scripted(['no', 'yes']), { logger }).rerank('secret query words', hits(2), 1);
      await failureOf(
        reranker(scripted(['no', { error: Object.assign(new Error('x'), { code: 'inference_timeout' }) }]), {
          logger,
        }).rerank('secret query words', hits(2), 1),
      );
      await failureOf(
        reranker(scripted([{ outcome: 'abstain', usedFallback: true }]), { logger }).rerank(
          'secret query words',
          hits(1),
          1,
        ),
      );
      const caller = new AbortController();
      const cancelled = reranker(scripted([{ hang: true }]), { logger }).rerank(
        'secret query words',
        hits(1),
        1,
        {
          signal: caller.signal,
        },
      );
      caller.abort();
      await failureOf(cancelled);

      expect(lines.map((line) => `${line.level} ${line.event}`)).toEqual([
        'debug memory.rerank.decision.completed',
        'warn memory.rerank.decision.failed',
        'warn memory.rerank.decision.failed',
        'debug memory.rerank.decision.cancelled',
      ]);
      for (const line of lines) {
        expect(line.fields).toMatchObject({
          policyId: DECISION_RERANK_POLICY_ID,
          decisionKind: 'memory.rerank',
        });
      }
      expect(lines[1]!.fields).toMatchObject({
        reason: 'evaluate_error',
        errorCode: 'inference_timeout',
        rank: 2,
      });
      expect(lines[2]!.fields).toMatchObject({ reason: 'backend_degraded', rank: 1 });
      const logged = JSON.stringify(lines);
      expect(logged).not.toContain('secret');
      expect(logged).not.toContain('memory text');
    });

    it('accepts a logger with only some methods', async () => {
      const debugOnly = { debug: () => {} };
      await expect(
        reranker(scripted(['yes']), { logger: debugOnly }).rerank('q', hits(1), 1),
      ).resolves.toMatchObject({ selectedRanks: [1], usedFallback: false });
      await expect(
        reranker(scripted([{ error: new Error('x') }]), { logger: debugOnly }).rerank('q', hits(1), 1),
      ).rejects.toMatchObject({ code: 'rerank_failure' });
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Helpers of the property test
// ---------------------------------------------------------------------------------------------------

type View = { selectedRanks: number[]; usedFallback: boolean } | { failed: string };

/** The reference: the sequential walk written out plainly. `stop` is the number of candidates it read. */
function walk(steps: readonly Step[], limit: number, keepOutcomes: readonly DecisionOutcome[]) {
  const kept: number[] = [];
  for (let index = 0; index < steps.length; index += 1) {
    const step = steps[index]!;
    if ('error' in step || step.usedFallback)
      return { view: { failed: 'rerank_failure' } as View, stop: index + 1 };
    if (keepOutcomes.includes(step.outcome as DecisionOutcome)) kept.push(index + 1);
    if (kept.length === limit)
      return { view: { selectedRanks: kept, usedFallback: false } as View, stop: index + 1 };
  }
  const fallback = Array.from({ length: Math.min(limit, steps.length) }, (_, index) => index + 1);
  const view: View = kept.length
    ? { selectedRanks: kept, usedFallback: false }
    : { selectedRanks: fallback, usedFallback: true };
  return { view, stop: steps.length };
}

async function run(
  subject: ReturnType<typeof reranker>,
  n: number,
  limit: number,
): Promise<{ view: View; usage: RerankUsage }> {
  try {
    const decision = await subject.rerank('q', hits(n), limit);
    return {
      view: { selectedRanks: decision.selectedRanks, usedFallback: decision.usedFallback },
      usage: decision.usage,
    };
  } catch (error) {
    const code = PowerContextError.isInstance(error) ? error.code : String(error);
    return { view: { failed: code }, usage: (error as { usage: RerankUsage }).usage };
  }
}

/** Small seeded PRNG, so every run sees the same 200 cases. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
