import type { RerankEndEvent, SearchEndEvent, SearchObserver } from '@powercontext/memory-core';
import type { RuntimeStatus } from '@powercontext/runtime';

/**
 * The server's Prometheus metrics at /metrics (RFC 0005, "Health and metrics"), in the text
 * exposition format, written here without a client library: a handful of counters and histograms.
 * Labels hold route templates, status codes, modes and outcomes, never ids, keys or text.
 */

type Labels = Record<string, string>;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const quote = (value: string) => value.replace(/\\/gu, '\\\\').replace(/\n/gu, '\\n').replace(/"/gu, '\\"');
  return `{${entries.map(([name, value]) => `${name}="${quote(value)}"`).join(',')}}`;
}

function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels, by = 1): void {
    const key = keyOf(labels);
    const current = this.#values.get(key) ?? { labels, value: 0 };
    current.value += by;
    this.#values.set(key, current);
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.#values.values())
      lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines;
  }
}

class Histogram {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    const series = this.#series.get(key) ?? { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
    for (const [index, bound] of this.buckets.entries()) if (value <= bound) series.counts[index]! += 1;
    series.sum += value;
    series.count += 1;
    this.#series.set(key, series);
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      for (const [index, bound] of this.buckets.entries()) {
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${counts[index]}`);
      }
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines;
  }
}

function gauge(name: string, help: string, samples: { labels: Labels; value: number }[]): string[] {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} gauge`,
    ...samples.map(({ labels, value }) => `${name}${labelText(labels)} ${value}`),
  ];
}

export class ServerMetrics {
  readonly #requests = new Counter(
    'powercontext_http_requests_total',
    'HTTP requests answered, by route and status code.',
  );
  readonly #requestSeconds = new Histogram(
    'powercontext_http_request_duration_seconds',
    'Time to answer an HTTP request, by route and status code.',
  );
  readonly #searchSeconds = new Histogram(
    'powercontext_search_duration_seconds',
    'Search latency by mode and stage: "search" is the whole search, "rerank" the rerank stage within it.',
  );
  readonly #searches = new Counter(
    'powercontext_searches_total',
    'Searches, by mode and whether they failed.',
  );
  readonly #reranks = new Counter('powercontext_rerank_total', 'Rerank stages, by policy and outcome.');
  readonly #reads = new Counter(
    'powercontext_reads_total',
    'Reads routed between the primary and read replicas, by where they were served.',
  );

  /** Counts one answered request; `route` is the route template (never the raw path). */
  request(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method, code: String(status) };
    this.#requests.inc(labels);
    this.#requestSeconds.observe(labels, seconds);
  }

  read(target: 'primary' | 'replica'): void {
    this.#reads.inc({ target });
  }

  /** Observes searches and reranks; installed next to the OpenTelemetry observer, not instead of it. */
  readonly observer: SearchObserver = {
    searchEnded: (event: SearchEndEvent) => {
      this.#searchSeconds.observe({ mode: event.mode, stage: 'search' }, event.durationMs / 1000);
      this.#searches.inc({ mode: event.mode, outcome: event.error === undefined ? 'ok' : 'error' });
    },
    rerankEnded: (event: RerankEndEvent) => {
      this.#searchSeconds.observe({ mode: 'reranked', stage: 'rerank' }, event.durationMs / 1000);
      this.#reranks.inc({ policy: event.policyId, outcome: event.outcome });
    },
  };

  /** The exposition text; `status` adds the pool and replica gauges when the runtime has them. */
  render(status: RuntimeStatus | undefined): string {
    const lines = [
      ...this.#requests.render(),
      ...this.#requestSeconds.render(),
      ...this.#searches.render(),
      ...this.#searchSeconds.render(),
      ...this.#reranks.render(),
      ...this.#reads.render(),
    ];
    if (status) {
      lines.push(
        ...gauge(
          'powercontext_database_up',
          'Whether the primary database answered the last check (1) or not (0).',
          [{ labels: {}, value: status.database.reachable ? 1 : 0 }],
        ),
      );
      if (status.pool) {
        lines.push(
          ...gauge('powercontext_db_pool_connections', 'Connections of the primary pool, by state.', [
            { labels: { state: 'total' }, value: status.pool.total },
            { labels: { state: 'idle' }, value: status.pool.idle },
            { labels: { state: 'waiting_clients' }, value: status.pool.waiting },
          ]),
        );
      }
      lines.push(
        ...gauge(
          'powercontext_replica_lag_seconds',
          'How far each read replica is behind (seconds since the last transaction it replayed; 0 when caught up). Absent when it did not answer.',
          status.replicas.flatMap((replica) =>
            replica.lagSeconds === undefined
              ? []
              : [{ labels: { replica: replica.name }, value: replica.lagSeconds }],
          ),
        ),
        ...gauge(
          'powercontext_replica_up',
          'Whether each read replica answered (1) or is skipped as down (0).',
          status.replicas.map((replica) => ({
            labels: { replica: replica.name },
            value: replica.lagSeconds !== undefined && !replica.down ? 1 : 0,
          })),
        ),
      );
    }
    return `${lines.join('\n')}\n`;
  }
}
