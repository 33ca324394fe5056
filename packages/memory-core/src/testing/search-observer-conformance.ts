/**
 * Conformance suite of the `SearchObserver` port (RFC 0003 "Extensions and deviations", 6.
 * Observability; "Search, steps 5-8"). Every observability adapter runs it unchanged; see
 * CONTRIBUTING.md.
 */
import { randomUUID } from 'node:crypto';
import type { RerankEndEvent, SearchEndEvent, SearchObserver } from '../ports/search-observer.port.js';
import { RerankStage } from '../rerank/rerank-stage.js';
import { MemoryService } from '../service/memory-service.js';
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  shown,
} from './conformance.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { InMemoryMemoryStore } from './in-memory-store.js';
import { minimalRrfPolicy } from './minimal-rrf-policy.js';
import { createScriptedReranker } from './scripted-reranker.js';

/** What the adapter exported, as its backend would receive it. */
export interface ObservedExport {
  /** One entry per ended operation the adapter recorded (a span, a log line), in the order it emitted them. */
  operations: ('search' | 'rerank')[];
  /** Everything it exported (records, attributes, metrics), searched for text that must not be there. */
  everything: unknown;
}

export interface SearchObserverHarness {
  observer: SearchObserver;
  exported(): Promise<ObservedExport> | ObservedExport;
  close?(): Promise<void> | void;
}

export interface SearchObserverConformanceOptions {
  /** A fresh observer of the adapter under test, wired to an in-memory exporter the harness reads. */
  create(): SearchObserverHarness | Promise<SearchObserverHarness>;
  /**
   * False for an aggregating exporter (Prometheus-style counters) whose labels say only whether an
   * operation failed, not with which code: the failed-search check then asks for the order and for
   * no text, but not for the code. Default true (a span or log exporter records the code).
   */
  exportsErrorCodes?: boolean;
}

// Words that appear only in the query and the stored texts: none may reach what the adapter exports.
const SECRET_WORDS = ['zanzibarquux', 'marmalade-ledger', 'Oberwinkelstraße'];
const QUERY = `where is the zanzibarquux marmalade-ledger kept`;
const TEXTS = [
  'The zanzibarquux marmalade-ledger is kept in the attic on Oberwinkelstraße.',
  'Another zanzibarquux note: the ledger moved twice.',
  'A marmalade-ledger recipe with zanzibarquux spice.',
];

type Script = 'select' | 'fail' | 'degrade' | 'none';

export function searchObserverConformanceSuite(options: SearchObserverConformanceOptions): ConformanceSuite {
  let harnesses: SearchObserverHarness[] = [];

  async function setUp(script: Script, failurePolicy: 'fail_closed' | 'fail_open' = 'fail_closed') {
    const harness = await options.create();
    harnesses.push(harness);
    const reranker = createScriptedReranker({
      policyId: 'conformance.observer.v1',
      decide: (_query, candidates) => {
        if (script === 'fail' || script === 'degrade') {
          // The error message carries the query, as a careless backend's would; it must not be exported.
          throw Object.assign(new Error(`the model choked on "${QUERY}"`), { code: 'inference_unavailable' });
        }
        return candidates.map((_, index) => candidates.length - index);
      },
    });
    const scopeId = `observer-${randomUUID()}`;
    const service = new MemoryService({
      store: new InMemoryMemoryStore(),
      embedder: createFakeEmbedder(),
      retrievalPolicy: minimalRrfPolicy,
      ...(script === 'none' ? {} : { rerankStage: new RerankStage({ reranker, failurePolicy }) }),
      observer: harness.observer,
    });
    await service.remember(scopeId, { entries: TEXTS.map((text) => ({ text })) });
    const search = () => service.search(scopeId, { query: QUERY, limit: 2 });
    return { harness, search };
  }

  async function exportedText(harness: SearchObserverHarness): Promise<string> {
    const { everything } = await harness.exported();
    return JSON.stringify(everything) ?? '';
  }

  function conformNoText(text: string, what: string): void {
    for (const secret of [QUERY, ...TEXTS, ...SECRET_WORDS]) {
      conform(
        !text.includes(secret),
        `${what}: the exported data contains ${shown(secret)}, text from the query or memory; observers export counts, ids and outcomes only`,
      );
    }
  }

  const checks: ConformanceCheck[] = [
    {
      title: 'records a reranked search as its rerank, then the search, and exports no text',
      rule: 'RFC 0003 "Extensions and deviations" 6, Observability: in order, never text',
      async run() {
        const { harness, search } = await setUp('select');
        await search();
        const { operations } = await harness.exported();
        conform(
          shown(operations) === shown(['rerank', 'search']),
          `a reranked search must be recorded as its rerank and then the search that contains it, got ${shown(operations)}`,
        );
        conformNoText(await exportedText(harness), 'a reranked search');
      },
    },
    {
      title: 'records a search without a reranker as one search',
      rule: 'RFC 0003 "Search, steps 5-8": no reranker, no rerank',
      async run() {
        const { harness, search } = await setUp('none');
        await search();
        const { operations } = await harness.exported();
        conform(
          shown(operations) === shown(['search']),
          `a search without a reranker must be recorded once, got ${shown(operations)}`,
        );
      },
    },
    {
      title: 'records a failed rerank and the failed search with the error code, and no text',
      rule: 'RFC 0003 "Extensions and deviations" 6, Observability: the error code, never the message',
      async run() {
        const { harness, search } = await setUp('fail');
        const failure = await search().then(
          () => undefined,
          (error: unknown) => error,
        );
        conform(failure !== undefined, 'the scripted rerank failure must fail the search (fail_closed)');
        const { operations } = await harness.exported();
        conform(
          shown(operations) === shown(['rerank', 'search']),
          `a failed reranked search must still be recorded as rerank then search, got ${shown(operations)}`,
        );
        const text = await exportedText(harness);
        conform(
          options.exportsErrorCodes === false || text.includes('inference_unavailable'),
          'the error code (inference_unavailable) of the failure must be exported (set exportsErrorCodes: false only for an exporter whose records cannot hold a code, such as counters)',
        );
        conformNoText(text, 'a failed search');
        conform(
          !text.includes('choked'),
          "the failure's message must not be exported; it can carry query text",
        );
      },
    },
    {
      title: 'keeps operations of concurrent searches whole: every rerank before the search that holds it',
      rule: 'RFC 0003 "Extensions and deviations" 6, Observability: in order also when searches run at once',
      async run() {
        const { harness, search } = await setUp('select');
        await Promise.all([search(), search(), search(), search()]);
        const { operations } = await harness.exported();
        let open = 0;
        for (const operation of operations) {
          open += operation === 'rerank' ? 1 : -1;
          conform(open >= 0, `a search was recorded before its rerank: ${shown(operations)}`);
        }
        conform(
          operations.length === 8 && open === 0,
          `4 reranked searches must give 4 rerank and 4 search records, got ${shown(operations)}`,
        );
      },
    },
    {
      title: 'never throws into the search, whatever the event values',
      rule: 'RFC 0003 "Extensions and deviations" 6, Observability: called inline, never throws',
      async run() {
        const harness = await options.create();
        harnesses.push(harness);
        const { observer } = harness;
        const search: SearchEndEvent = {
          mode: 'hybrid',
          limit: 5,
          hitCount: 0,
          durationMs: Number.NaN,
          reranked: false,
        };
        const rerank: RerankEndEvent = {
          policyId: 'conformance.observer.v1',
          candidateCount: 0,
          limit: 5,
          outcome: 'degraded',
          selectedCount: 0,
          discardedRankCount: 0,
          degradationReason: 'saturated',
          queueWaitMs: -1,
          durationMs: Number.POSITIVE_INFINITY,
          saturated: true,
          usage: { requests: 0, calls: 0, inputTokens: 0 },
        };
        try {
          observer.searchStarted?.({ requestedMode: 'auto', limit: 5 });
          observer.rerankStarted?.({ policyId: rerank.policyId, candidateCount: 0, limit: 5 });
          observer.rerankEnded?.(rerank);
          observer.rerankEnded?.({
            ...rerank,
            outcome: 'failed',
            errorCode: 'rerank_deadline',
            durationMs: -5,
          });
          observer.searchEnded?.(search);
          observer.searchEnded?.({ ...search, error: 'internal', durationMs: 1e12 });
        } catch (error) {
          conform(
            false,
            `the observer threw ${String(error)}; an observer failure must never reach the search`,
          );
        }
        const degraded = await setUp('degrade', 'fail_open');
        const result = await degraded.search().catch((error: unknown) => error);
        conform(
          !(result instanceof Error),
          `a degraded search (fail_open) with the observer attached must succeed, got ${String(result)}`,
        );
      },
    },
  ];
  return {
    checks,
    async cleanup() {
      const open = harnesses;
      harnesses = [];
      for (const harness of open) await harness.close?.();
    },
  };
}

export function describeSearchObserverConformance(
  name: string,
  options: SearchObserverConformanceOptions,
): void {
  registerConformanceSuite(`SearchObserver conformance: ${name}`, searchObserverConformanceSuite(options));
}

export function runSearchObserverConformance(options: SearchObserverConformanceOptions) {
  return runConformanceSuite(searchObserverConformanceSuite(options));
}

/** Every event an observer received, in order: the in-memory fake of the port. */
export function createRecordingSearchObserver(): SearchObserver & {
  events: { name: 'searchStarted' | 'searchEnded' | 'rerankStarted' | 'rerankEnded'; event: unknown }[];
} {
  const events: {
    name: 'searchStarted' | 'searchEnded' | 'rerankStarted' | 'rerankEnded';
    event: unknown;
  }[] = [];
  return {
    events,
    searchStarted: (event) => void events.push({ name: 'searchStarted', event: { ...event } }),
    searchEnded: (event) => void events.push({ name: 'searchEnded', event: { ...event } }),
    rerankStarted: (event) => void events.push({ name: 'rerankStarted', event: { ...event } }),
    rerankEnded: (event) =>
      void events.push({ name: 'rerankEnded', event: { ...event, usage: { ...event.usage } } }),
  };
}
