import type { SearchObserver } from '@powercontext/memory-core';
import {
  describeSearchObserverConformance,
  type SearchObserverHarness,
} from '@powercontext/memory-core/testing';
import { ServerMetrics } from './metrics.js';

// The SearchObserver conformance suite over the Prometheus metrics observer the server installs next
// to the OpenTelemetry one. Counters keep no order, so the harness scrapes /metrics' text after every
// event the search sends: an operation counts as exported, in that order, when its counter moved.

const COUNTERS = { search: 'powercontext_searches_total', rerank: 'powercontext_rerank_total' } as const;

function totals(exposition: string): Record<keyof typeof COUNTERS, number> {
  const sum = (name: string) =>
    exposition
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { search: sum(COUNTERS.search), rerank: sum(COUNTERS.rerank) };
}

function metricsHarness(): SearchObserverHarness {
  const metrics = new ServerMetrics();
  const inner = metrics.observer;
  const operations: ('search' | 'rerank')[] = [];
  let seen = totals(metrics.render(undefined));
  const scrape = () => {
    const now = totals(metrics.render(undefined));
    for (const operation of ['rerank', 'search'] as const) {
      for (let moved = seen[operation]; moved < now[operation]; moved += 1) operations.push(operation);
    }
    seen = now;
  };
  // Forwards each event unchanged (a throw still reaches the caller), then scrapes.
  const observer: SearchObserver = {
    searchStarted: (event) => {
      inner.searchStarted?.(event);
      scrape();
    },
    searchEnded: (event) => {
      inner.searchEnded?.(event);
      scrape();
    },
    rerankStarted: (event) => {
      inner.rerankStarted?.(event);
      scrape();
    },
    rerankEnded: (event) => {
      inner.rerankEnded?.(event);
      scrape();
    },
  };
  return { observer, exported: () => ({ operations, everything: metrics.render(undefined) }) };
}

// Its counters say a search or a rerank failed (outcome="error", outcome="failed"), not with which
// code (RFC 0011 "Health and metrics": series by mode, policy and outcome).
describeSearchObserverConformance('Prometheus metrics observer (server /metrics)', {
  create: metricsHarness,
  exportsErrorCodes: false,
});
