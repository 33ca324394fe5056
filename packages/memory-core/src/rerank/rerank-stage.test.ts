import { describe, expect, it } from 'vitest';
import { noopLogger } from '../ports/logger.port.js';
import type { SearchObserver } from '../ports/search-observer.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { minimalRrfPolicy } from '../testing/minimal-rrf-policy.js';
import { createScriptedReranker, type ScriptedRerankerOptions } from '../testing/scripted-reranker.js';
import { RerankStage, type RerankStageOptions } from './rerank-stage.js';

const TEXTS = Array.from({ length: 40 }, (_, i) => `garden note ${i} about compost and beds number ${i}`);

async function setup(stage?: Partial<RerankStageOptions> & { script?: ScriptedRerankerOptions }) {
  const store = new InMemoryMemoryStore();
  const embedder = createFakeEmbedder();
  const reranker = createScriptedReranker(stage?.script);
  const events: unknown[] = [];
  const warnings: { event: string; fields: unknown }[] = [];
  const logger = {
    ...noopLogger,
    warn: (event: string, fields?: unknown) => {
      warnings.push({ event, fields });
    },
  };
  const observer: SearchObserver = {
    rerankEnded: (event) => events.push(event),
    searchEnded: (event) => events.push(event),
  };
  const plain = new MemoryService({ store, embedder, retrievalPolicy: minimalRrfPolicy });
  const rerankStage = stage ? new RerankStage({ reranker, ...stage }) : undefined;
  const service = new MemoryService({
    store,
    embedder,
    retrievalPolicy: minimalRrfPolicy,
    observer,
    logger,
    ...(rerankStage ? { rerankStage } : {}),
  });
  await plain.remember('s', { entries: TEXTS.map((text) => ({ text })) });
  return { store, plain, service, reranker, events, warnings, rerankStage };
}

const timeoutError = () =>
  Object.assign(new Error('model timed out'), {
    code: 'inference_timeout',
    usage: { requests: 2, calls: 1 },
  });

describe('rerank stage in search', () => {
  it('is off by default: results equal the coarse path and no reranker runs', async () => {
    const { plain, service } = await setup();
    const a = await plain.search('s', { query: 'compost beds', limit: 10 });
    const b = await service.search('s', { query: 'compost beds', limit: 10 });
    expect(b).toEqual(a);
    expect(b.trace).toBeUndefined();
  });

  it('fetches max(limit, candidate limit), resolves selected ranks to the original hit objects, and traces it', async () => {
    const { plain, service, reranker } = await setup({
      candidateLimit: 30,
      script: { decide: () => [5, 2, 2, 77] },
    });
    const result = await service.search('s', { query: 'compost beds', limit: 3 });
    const coarse = await plain.search('s', { query: 'compost beds', limit: 30 });
    expect(reranker.calls).toHaveLength(1);
    expect(reranker.calls[0]!.query).toBe('compost beds');
    expect(reranker.calls[0]!.limit).toBe(3);
    expect(result.trace!.candidates).toEqual(coarse.hits);
    expect(result.trace!.candidates).toHaveLength(30);
    expect(result.hits).toHaveLength(2);
    expect(result.hits[0]).toBe(result.trace!.candidates[4]);
    expect(result.hits[1]).toBe(result.trace!.candidates[1]);
    expect(result.trace).toMatchObject({
      policyId: 'test.scripted.v1',
      selectedRanks: [5, 2],
      discardedRankCount: 2,
      usedFallback: false,
      usage: { requests: 1, calls: 1 },
    });
    expect(result.trace!.degraded).toBeUndefined();
    expect(result.trace!.latencies.rerankMs).toBeGreaterThanOrEqual(0);
    expect(result.trace!.latencies.queueWaitMs).toBeGreaterThanOrEqual(0);
  });

  it("copies the reranker's model id and document count into the trace (absent when not declared)", async () => {
    const { service, reranker } = await setup({ candidateLimit: 30 });
    const plainTrace = (await service.search('s', { query: 'compost beds', limit: 3 })).trace!;
    expect('modelId' in plainTrace).toBe(false);
    const declared = new RerankStage({
      reranker: {
        policyId: 'test.scored.v1',
        modelId: 'openai-compatible:test-cross-encoder',
        rerank: async () => ({
          selectedRanks: [2],
          usage: { requests: 1, calls: 1, documents: 30 },
          discardedRankCount: 0,
          usedFallback: false,
        }),
      },
    });
    const store = new InMemoryMemoryStore();
    const withModel = new MemoryService({
      store,
      embedder: createFakeEmbedder(),
      retrievalPolicy: minimalRrfPolicy,
      rerankStage: declared,
    });
    await withModel.remember('s', { entries: TEXTS.map((text) => ({ text })) });
    const trace = (await withModel.search('s', { query: 'compost beds', limit: 3 })).trace!;
    expect(trace.modelId).toBe('openai-compatible:test-cross-encoder');
    expect(trace.usage).toEqual({ requests: 1, calls: 1, documents: 30 });
    expect(reranker.calls).toHaveLength(1);
  });

  it('does not call the reranker for an empty pool', async () => {
    const { service, reranker } = await setup({});
    const result = await service.search('s', { query: 'zebra', mode: 'fts' });
    expect(result.hits).toEqual([]);
    expect(reranker.calls).toHaveLength(0);
    expect(result.trace).toBeUndefined();
  });

  it.each([
    [
      'too many ranks',
      {
        selectedRanks: [1, 2, 3],
        usage: { requests: 1, calls: 1 },
        discardedRankCount: 0,
        usedFallback: false,
      },
    ],
    [
      'a duplicate rank',
      { selectedRanks: [1, 1], usage: { requests: 1, calls: 1 }, discardedRankCount: 0, usedFallback: false },
    ],
    [
      'a rank outside 1..n',
      { selectedRanks: [31], usage: { requests: 1, calls: 1 }, discardedRankCount: 0, usedFallback: false },
    ],
    [
      'no rank',
      { selectedRanks: [], usage: { requests: 1, calls: 1 }, discardedRankCount: 0, usedFallback: false },
    ],
  ])('treats a decision with %s as a reranker defect, under either policy', async (_name, decision) => {
    for (const failurePolicy of ['fail_closed', 'fail_open'] as const) {
      const { service } = await setup({ failurePolicy, script: { decide: () => decision } });
      await expect(service.search('s', { query: 'compost', limit: 2 })).rejects.toMatchObject({
        code: 'reranker_defect',
      });
    }
  });

  it('fail_closed propagates a model failure unchanged', async () => {
    const failure = timeoutError();
    const { service } = await setup({ script: { decide: () => Promise.reject(failure) } });
    await expect(service.search('s', { query: 'compost', limit: 4 })).rejects.toBe(failure);
  });

  it('fail_open returns coarse ranks with the degradation in the trace, usedFallback staying false', async () => {
    const { service, plain, events, warnings } = await setup({
      failurePolicy: 'fail_open',
      script: { decide: () => Promise.reject(timeoutError()) },
    });
    const result = await service.search('s', { query: 'compost', limit: 4 });
    const coarse = await plain.search('s', { query: 'compost', limit: 4 });
    expect(result.hits.map((hit) => hit.citation)).toEqual(coarse.hits.map((hit) => hit.citation));
    expect(result.trace).toMatchObject({
      selectedRanks: [1, 2, 3, 4],
      usedFallback: false,
      degraded: { reason: 'timeout', errorCode: 'inference_timeout' },
      usage: { requests: 2, calls: 1 },
    });
    expect(events).toContainEqual(
      expect.objectContaining({ outcome: 'degraded', degradationReason: 'timeout' }),
    );
    expect(JSON.stringify(events)).not.toContain('compost');
    expect(warnings).toContainEqual({
      event: 'memory.rerank.degraded',
      fields: expect.objectContaining({
        policyId: 'test.scripted.v1',
        reason: 'timeout',
        errorCode: 'inference_timeout',
      }),
    });
    expect(JSON.stringify(warnings)).not.toContain('compost');
  });

  it('maps unknown failures to rerank_failure under fail_open', async () => {
    const { service } = await setup({
      failurePolicy: 'fail_open',
      script: { decide: () => Promise.reject(new Error('boom')) },
    });
    expect((await service.search('s', { query: 'compost' })).trace?.degraded).toEqual({
      reason: 'rerank_failure',
    });
  });

  it('saturates when every slot stays busy past the queue timeout', async () => {
    for (const failurePolicy of ['fail_closed', 'fail_open'] as const) {
      let unblock!: () => void;
      const blocked = new Promise<void>((resolve) => {
        unblock = resolve;
      });
      let entered!: () => void;
      const started = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const { service, rerankStage } = await setup({
        failurePolicy,
        maxInFlight: 1,
        queueTimeoutMs: 20,
        script: {
          decide: async () => {
            entered();
            await blocked;
            return [1];
          },
        },
      });
      const first = service.search('s', { query: 'compost', limit: 2 });
      await started;
      expect(rerankStage!.inFlight).toBe(1);
      if (failurePolicy === 'fail_closed') {
        await expect(service.search('s', { query: 'beds', limit: 2 })).rejects.toMatchObject({
          code: 'rerank_saturated',
          retryable: true,
        });
      } else {
        expect((await service.search('s', { query: 'beds', limit: 2 })).trace?.degraded?.reason).toBe(
          'saturated',
        );
      }
      unblock();
      expect((await first).trace?.selectedRanks).toEqual([1]);
      expect(rerankStage!.inFlight).toBe(0);
    }
  });

  it('ends the stage at its deadline, even when the reranker ignores its signal, and frees the slot when the call ends', async () => {
    let finish!: () => void;
    const stuck = new Promise<number[]>((resolve) => {
      finish = () => resolve([1]);
    });
    const { service, rerankStage } = await setup({ deadlineMs: 30, script: { decide: () => stuck } });
    const started = performance.now();
    await expect(service.search('s', { query: 'compost' })).rejects.toMatchObject({
      code: 'rerank_deadline',
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(rerankStage!.inFlight).toBe(1); // the ignored call is still running and still counted
    finish();
    await stuck;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(rerankStage!.inFlight).toBe(0);
  });

  it('aborts the reranker at the deadline when it honours its signal', async () => {
    const { service, rerankStage } = await setup({
      failurePolicy: 'fail_open',
      deadlineMs: 20,
      script: {
        decide: (_q, _c, _l, { signal }) =>
          new Promise((_, reject) =>
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
      },
    });
    const result = await service.search('s', { query: 'compost' });
    expect(result.trace?.degraded?.reason).toBe('deadline');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(rerankStage!.inFlight).toBe(0);
  });

  it('releases its slot when a reranker throws synchronously or returns a plain value', async () => {
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    const throwing = new RerankStage({
      maxInFlight: 1,
      queueTimeoutMs: 10,
      reranker: {
        policyId: 'test.sync-throw.v1',
        rerank: () => {
          throw Object.assign(new Error('sync'), { code: 'inference_unavailable' });
        },
      },
    });
    const plain = new RerankStage({
      maxInFlight: 1,
      queueTimeoutMs: 10,
      reranker: {
        policyId: 'test.plain-value.v1',
        rerank: (() => ({
          selectedRanks: [1],
          usage: { requests: 0, calls: 0 },
          discardedRankCount: 0,
          usedFallback: false,
        })) as never,
      },
    });
    const writer = new MemoryService({ store, embedder, retrievalPolicy: minimalRrfPolicy });
    await writer.remember('s', { entries: TEXTS.map((text) => ({ text })) });
    const failing = new MemoryService({
      store,
      embedder,
      retrievalPolicy: minimalRrfPolicy,
      rerankStage: throwing,
    });
    const plainService = new MemoryService({
      store,
      embedder,
      retrievalPolicy: minimalRrfPolicy,
      rerankStage: plain,
    });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(failing.search('s', { query: 'compost' })).rejects.toMatchObject({
        code: 'inference_unavailable',
      });
      expect((await plainService.search('s', { query: 'compost' })).trace?.selectedRanks).toEqual([1]);
    }
    expect(throwing.inFlight).toBe(0);
    expect(plain.inFlight).toBe(0);
  });

  it('propagates the caller’s cancellation even under fail_open', async () => {
    const { service } = await setup({
      failurePolicy: 'fail_open',
      script: {
        decide: (_q, _c, _l, { signal }) =>
          new Promise((_, reject) =>
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
      },
    });
    const controller = new AbortController();
    const searching = service.search('s', { query: 'compost' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller went away')), 5);
    await expect(searching).rejects.toThrow('caller went away');
  });
});
