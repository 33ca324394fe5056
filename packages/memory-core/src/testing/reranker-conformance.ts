/**
 * Conformance suite of the `MemoryReranker` port (RFC 0003 "The seam", seed 000 "Listwise policy" and
 * "Failure behavior"). Every reranker adapter runs it unchanged; see CONTRIBUTING.md.
 */
import type { MemoryHit } from '../domain/search.js';
import { PowerContextError } from '../errors/powercontext-error.js';
import type { MemoryRerankDecision, MemoryReranker } from '../ports/memory-reranker.port.js';
import { validateDecision } from '../rerank/validate-decision.js';
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';

/**
 * How the backend behind the reranker (a model, a fake, a loopback server) must behave for a check.
 * - `judge`: it judges each candidate by its text alone and finds exactly those with `keeps(text)`
 *   relevant, and no other. A listwise model lists their ranks; a decision model says yes to them and
 *   no to the rest; a scoring model scores them above the reranker's threshold and the rest below.
 * - `fail`: every backend call fails the way the backend fails for real (an HTTP 500, an outage).
 * - `hang`: no backend call ever answers; it ends only when the call's abort signal fires.
 */
export type RerankBackend =
  | { kind: 'judge'; keeps: (text: string) => boolean }
  | { kind: 'fail' }
  | { kind: 'hang' };

export interface RerankerConformanceOptions {
  /** A reranker of the adapter under test over a backend that behaves as `backend` says. */
  create(backend: RerankBackend): MemoryReranker | Promise<MemoryReranker>;
  /** Called after every check: close what `create` opened. */
  cleanup?(): Promise<void> | void;
  /** How long a rerank may take before a check reports it as hanging. Default 5000 ms. */
  patienceMs?: number;
}

const MARK = 'KEEP';
const keepsMarked = (text: string) => text.includes(MARK);
const judge: RerankBackend = { kind: 'judge', keeps: keepsMarked };

/** Codes a reranker may fail with; the rerank stage maps each to a degradation reason. */
const FAILURE_CODES = [
  'inference_timeout',
  'inference_unavailable',
  'inference_invalid_output',
  'rerank_failure',
  'rerank_deadline',
] as const;

const DECISION_KEYS = new Set([
  'selectedRanks',
  'usage',
  'discardedRankCount',
  'usedFallback',
  'ignoredAfterLimitCount',
  'truncatedRanks',
]);

/** A frozen coarse pool; `kept` lists the 1-based ranks whose text carries the relevance mark. */
export function conformancePool(size: number, kept: readonly number[] = []): MemoryHit[] {
  return Array.from({ length: size }, (_, index) => {
    const rank = index + 1;
    const text = kept.includes(rank)
      ? `Candidate ${rank} ${MARK}: the garden council approved the water tap.`
      : `Candidate ${rank}: notes about an unrelated topic, number ${rank}.`;
    const entryId = `conformance-entry-${rank}`;
    const hit: MemoryHit = {
      citation: {
        scopeId: 'conformance-scope',
        artifactId: 'conformance-artifact',
        revision: 1,
        entryId,
        entryVersionId: `${entryId}-v1`,
      },
      entry: {
        entryId,
        entryVersionId: `${entryId}-v1`,
        version: 1,
        previousVersionId: null,
        kind: 'note',
        text,
        contentHash: `hash-${rank}`,
        revision: 1,
        sources: [],
        position: null,
        metadata: {},
        tags: [],
        pinned: false,
        occurredAt: null,
        state: 'active',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      text,
      score: 1 / (60 + rank),
      matchedBy: ['fts'],
      channelRanks: { fts: rank },
      channelScores: { fts: 1 },
    };
    return deepFreeze(hit);
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The checks of the suite, as plain functions (see `runRerankerConformance`). */
export function rerankerConformanceSuite(options: RerankerConformanceOptions): ConformanceSuite {
  const patienceMs = options.patienceMs ?? 5_000;
  const query = 'what did the garden council approve';

  async function decide(
    reranker: MemoryReranker,
    pool: readonly MemoryHit[],
    limit: number,
  ): Promise<MemoryRerankDecision> {
    const settled = await settleWithin(
      Promise.resolve().then(() => reranker.rerank(query, pool, limit)),
      patienceMs,
    );
    conform(
      settled.status !== 'timedOut',
      `rerank of ${pool.length} candidates did not answer within ${patienceMs} ms`,
    );
    if (settled.status === 'rejected') {
      throw new Error(
        `rerank of ${pool.length} candidates (limit ${limit}) failed: ${String(settled.reason)}`,
        {
          cause: settled.reason,
        },
      );
    }
    const decision = settled.value;
    try {
      validateDecision(reranker.policyId, decision, pool.length, limit);
    } catch (error) {
      conform(false, `the decision breaks the port's contract: ${(error as Error).message}`);
    }
    return decision;
  }

  const checks: ConformanceCheck[] = [
    {
      title: 'names a versioned policy id',
      rule: 'RFC 0003 "The seam"',
      async run() {
        const { policyId } = await options.create(judge);
        conform(
          typeof policyId === 'string' && /\S/.test(policyId) && /v\d+/.test(policyId),
          `policyId must be a non-empty, versioned string (e.g. "acme.rerank.v1"), got ${shown(policyId)}`,
        );
      },
    },
    {
      title: 'selects the relevant candidates and nothing else: a sparse selection is never padded',
      rule: 'seed 000 "Listwise policy": sparse valid output is not padded',
      async run() {
        const reranker = await options.create(judge);
        const decision = await decide(reranker, conformancePool(6, [2, 5]), 4);
        const selected = [...decision.selectedRanks].sort((a, b) => a - b);
        conform(
          shown(selected) === '[2,5]',
          `the backend found only ranks 2 and 5 relevant (limit 4), so the selection must be exactly {2, 5}; got ${shown(decision.selectedRanks)}. Padding up to the limit restores candidates the model rejected.`,
        );
        conform(
          decision.usedFallback === false,
          'usedFallback must be false when the backend found relevant candidates',
        );
      },
    },
    {
      title: 'selects at most min(limit, n) distinct ranks, each in 1..n',
      rule: 'RFC 0003 "The seam": validateDecision',
      async run() {
        const reranker = await options.create(judge);
        for (const [size, limit] of [
          [8, 3],
          [3, 10],
          [1, 1],
          [100, 50],
        ] as const) {
          const pool = conformancePool(
            size,
            Array.from({ length: size }, (_, index) => index + 1),
          );
          const decision = await decide(reranker, pool, limit);
          conform(
            decision.selectedRanks.length === Math.min(limit, size),
            `all ${size} candidates are relevant and the limit is ${limit}: expected ${Math.min(limit, size)} ranks, got ${decision.selectedRanks.length} (${shown(decision.selectedRanks)})`,
          );
        }
      },
    },
    {
      title: 'falls back to coarse ranks 1..min(limit, n), flagged, only when nothing is relevant',
      rule: 'seed 000 "Listwise policy": fall back only when no valid rank remains',
      async run() {
        const reranker = await options.create(judge);
        const decision = await decide(reranker, conformancePool(5), 3);
        conform(
          shown(decision.selectedRanks) === '[1,2,3]' && decision.usedFallback === true,
          `no candidate is relevant: expected coarse ranks [1,2,3] with usedFallback true, got ${shown(decision.selectedRanks)} with usedFallback ${shown(decision.usedFallback)}`,
        );
      },
    },
    {
      title: 'returns ranks only and never alters the candidates',
      rule: 'seed 000: the model selects integer positions only; RFC 0003 "The seam"',
      async run() {
        const reranker = await options.create(judge);
        const pool = conformancePool(4, [1, 3]);
        const before = JSON.stringify(pool);
        let decision: MemoryRerankDecision;
        try {
          decision = await decide(reranker, pool, 2);
        } catch (error) {
          if (error instanceof TypeError) {
            conform(false, `the reranker tried to modify a candidate (they are frozen): ${error.message}`);
          }
          throw error;
        }
        conform(JSON.stringify(pool) === before, 'the candidates changed during the rerank');
        const extra = Object.keys(decision).filter((key) => !DECISION_KEYS.has(key));
        conform(extra.length === 0, `the decision has keys the port does not define: ${shown(extra)}`);
        const text = JSON.stringify(decision);
        for (const hit of pool) {
          conform(
            !text.includes(hit.citation.entryId) && !text.includes(hit.text),
            `the decision carries a candidate's id or text (${shown(decision)}); identity comes only from the ranks`,
          );
        }
        const { usage } = decision;
        conform(
          [usage.inputTokens, usage.outputTokens, usage.totalTokens].every(
            (tokens) => tokens === undefined || (Number.isInteger(tokens) && tokens >= 0),
          ),
          `token counts must be undefined when unknown or non-negative integers, got ${shown(usage)}`,
        );
      },
    },
    {
      title: 'refuses a pool or a limit out of bounds before any backend call',
      rule: 'RFC 0003 "The seam": assertRerankBounds',
      async run() {
        // A hanging backend: a reranker that calls it before checking the bounds never answers.
        const reranker = await options.create({ kind: 'hang' });
        for (const [size, limit, field] of [
          [0, 5, 'candidates'],
          [101, 5, 'candidates'],
          [5, 0, 'limit'],
          [5, 51, 'limit'],
          [5, 1.5, 'limit'],
        ] as const) {
          const settled = await settleWithin(
            Promise.resolve().then(() => reranker.rerank(query, conformancePool(size), limit)),
            patienceMs,
          );
          conform(
            settled.status !== 'timedOut',
            `a pool of ${size} with limit ${limit} must be refused before the backend is called, but the rerank waited on the backend`,
          );
          const reason = settled.status === 'rejected' ? settled.reason : undefined;
          conform(
            PowerContextError.isInstance(reason) &&
              reason.code === 'rerank_out_of_bounds' &&
              (reason as PowerContextError & { field?: string }).field === field,
            `a pool of ${size} with limit ${limit} must raise RerankOutOfBoundsError (code rerank_out_of_bounds, field ${field}); got ${settled.status === 'fulfilled' ? 'a decision' : String(reason)}`,
          );
        }
      },
    },
    {
      title: "honours the caller's abort, rethrowing the caller's reason",
      rule: 'RFC 0003 "The seam": { signal }; RFC 0004 "The decision reranker"',
      async run() {
        const reranker = await options.create({ kind: 'hang' });
        const controller = new AbortController();
        const reason = new Error('conformance: the caller gave up');
        const pending = Promise.resolve().then(() =>
          reranker.rerank(query, conformancePool(3, [1]), 2, { signal: controller.signal }),
        );
        setTimeout(() => controller.abort(reason), 20);
        const settled = await settleWithin(pending, patienceMs);
        conform(settled.status !== 'timedOut', `the rerank ignored the abort signal for ${patienceMs} ms`);
        conform(
          settled.status === 'rejected' && settled.reason === reason,
          `an aborted rerank must reject with the caller's own abort reason, got ${settled.status === 'rejected' ? String(settled.reason) : 'a decision'}`,
        );

        const already = new AbortController();
        already.abort(reason);
        const early = await settleWithin(
          Promise.resolve().then(() =>
            reranker.rerank(query, conformancePool(3, [1]), 2, { signal: already.signal }),
          ),
          patienceMs,
        );
        conform(
          early.status === 'rejected' && early.reason === reason,
          `a rerank called with an already aborted signal must reject with its reason, got ${early.status}`,
        );
      },
    },
    {
      title: 'fails with a typed error when the backend fails, never with a silent coarse result',
      rule: 'seed 000 "Failure behavior"; RFC 0003 "Failure behaviour"',
      async run() {
        const reranker = await options.create({ kind: 'fail' });
        const settled = await settleWithin(
          Promise.resolve().then(() => reranker.rerank(query, conformancePool(4, [2]), 2)),
          patienceMs,
        );
        conform(
          settled.status !== 'timedOut',
          `the rerank did not answer within ${patienceMs} ms when its backend failed`,
        );
        conform(
          settled.status === 'rejected',
          `a failed backend must fail the rerank (the stage's failure policy decides what happens next); the reranker returned ${shown(settled.status === 'fulfilled' ? settled.value : undefined)}`,
        );
        const code = (settled.reason as { code?: unknown } | undefined)?.code;
        conform(
          settled.reason instanceof Error && FAILURE_CODES.includes(code as (typeof FAILURE_CODES)[number]),
          `the failure must be an Error with a code among ${FAILURE_CODES.join(', ')}; got ${String(settled.reason)} with code ${shown(code)}`,
        );
      },
    },
  ];
  return { checks, ...(options.cleanup ? { cleanup: () => options.cleanup?.() } : {}) };
}

/** Registers the suite as vitest tests: `describeRerankerConformance('my reranker', { create })`. */
export function describeRerankerConformance(name: string, options: RerankerConformanceOptions): void {
  registerConformanceSuite(`MemoryReranker conformance: ${name}`, rerankerConformanceSuite(options));
}

/** Runs the suite as plain functions and returns each check's outcome (for self-tests and tools). */
export function runRerankerConformance(options: RerankerConformanceOptions) {
  return runConformanceSuite(rerankerConformanceSuite(options));
}
