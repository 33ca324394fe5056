import { describe, expect, it } from 'vitest';
import { scaleMarkdown } from './scale-markdown.js';
import { type ScaleReport, type StoreResult, validateScaleReport } from './scale-report.js';

const latency = (p50: number) => ({ p50_ms: p50, p95_ms: p50 * 2, p99_ms: p50 * 3, mean_ms: p50 * 1.2 });
const modeLatency = (p50: number) => ({ ...latency(p50), mean_hits: 9.5 });

function store(kind: 'pglite' | 'postgres'): StoreResult {
  return {
    store: kind,
    measured: true,
    ingest: { entries: 1000, created: 1000, seconds: 4, entries_per_second: 250, batch_size: 500 },
    search: { fts: modeLatency(1.5), vector: modeLatency(2.25), hybrid: modeLatency(3.125) },
    throughput: [1, 8].flatMap((clients) =>
      (['fts', 'vector', 'hybrid'] as const).map((mode) => ({
        mode,
        clients,
        searches: 200,
        unavailable: clients === 8 ? 3 : 0,
        ...(clients === 8
          ? { lexical_from_memory: 150, vector_from_memory: 140, client_cpu_share: 0.75 }
          : {}),
        seconds: 2,
        searches_per_second: clients * 50,
        p50_ms: 4,
        p95_ms: 9,
      })),
    ),
    rerank_overhead: {
      mode: 'hybrid',
      candidate_limit: 30,
      without_reranker: latency(3.125),
      with_instant_reranker: latency(3.5),
      coarse_ms: latency(3.25),
      stage_ms: latency(0.125),
    },
    peak_rss_mb: 812.4,
    storage_mb: 64,
    bytes_per_entry: 67_109,
    search_floor: {
      fts: floorMode(2, 1.6),
      vector: floorMode(4, 4),
      hybrid: floorMode(5, 4),
    },
    note: 'peak RSS note',
  };
}

function floorMode(product: number, floor: number) {
  return {
    queries: 100,
    product_p50_ms: product,
    product_p95_ms: product * 2,
    floor_p50_ms: floor,
    floor_p95_ms: floor * 2,
    ratio_p50: Math.round((product / floor) * 100) / 100,
  };
}

function sampleReport(): ScaleReport {
  return {
    benchmark: 'scale',
    generated_at: '2026-11-29T12:00:00.000Z',
    machine: {
      cpus: 2,
      cpu_model: 'Test CPU',
      total_memory_mb: 24_000,
      load_average_start: [1.5, 1, 0.5],
      load_average_end: [2, 1.25, 0.75],
      node: 'v20.20.2',
      platform: 'linux-x64',
    },
    config: {
      sizes: [1000],
      stores: ['pglite', 'postgres'],
      concurrency: [1, 8],
      queries: 200,
      warmup_queries: 20,
      scopes: 10,
      seed: 42,
      limit: 10,
      batch_size: 500,
      embedding_profile: 'powercontext.local-hash.v2@1024',
      retrieval_policy: 'powercontext.retrieval.rrf.v1',
    },
    sizes: [
      {
        entries: 1000,
        scopes: 10,
        corpus: { mean_words: 24.4, mean_chars: 136.2, max_chars: 258 },
        embedder: { entries: 1000, seconds: 0.1, entries_per_second: 10_000 },
        stores: [store('pglite'), { store: 'postgres', measured: false, reason: 'server unreachable' }],
        peers: [
          {
            system: 'minisearch',
            mode: 'fts',
            measured: true,
            ingest: { entries: 1000, seconds: 0.2, entries_per_second: 5000 },
            search: modeLatency(0.25),
            peak_rss_mb: 120,
          },
          {
            system: 'orama',
            mode: 'hybrid',
            measured: false,
            reason: 'the case process ended without a result',
          },
        ],
      },
    ],
  };
}

describe('scale report schema', () => {
  it('accepts a complete report, measured and not measured cases together', () => {
    const report = sampleReport();
    expect(validateScaleReport(report)).toEqual(report);
  });

  it('rejects negative figures, unknown keys, nulls and a measured case without figures', () => {
    const negative = sampleReport();
    (negative.sizes[0]!.stores[0] as StoreResult).ingest.entries_per_second = -1;
    expect(() => validateScaleReport(negative)).toThrow(/sizes\.0\.stores\.0\.ingest\.entries_per_second/);

    const extra = sampleReport() as unknown as { machine: Record<string, unknown> };
    extra.machine.gpu = 'none';
    expect(() => validateScaleReport(extra)).toThrow(/machine/);

    const nullish = sampleReport() as unknown as { sizes: { stores: Record<string, unknown>[] }[] };
    nullish.sizes[0]!.stores[0]!.storage_mb = null;
    expect(() => validateScaleReport(nullish)).toThrow(/storage_mb/);

    const bare = sampleReport() as unknown as { sizes: { stores: Record<string, unknown>[] }[] };
    bare.sizes[0]!.stores[0] = { store: 'pglite', measured: true };
    expect(() => validateScaleReport(bare)).toThrow(/sizes\.0\.stores\.0/);
  });

  it('drops undefined optional figures in the JSON round trip instead of writing null', () => {
    const report = sampleReport();
    (report.sizes[0]!.stores[0] as StoreResult).rerank_overhead = undefined;
    const validated = validateScaleReport(report);
    expect(JSON.stringify(validated)).not.toContain('null');
    expect('rerank_overhead' in (validated.sizes[0]!.stores[0] as StoreResult)).toBe(false);
  });
});

describe('scaleMarkdown', () => {
  const markdown = scaleMarkdown(sampleReport());

  it('has one row per store, peer and mode with the figures as measured', () => {
    expect(markdown).toContain('| 1,000 | powercontext pglite | 250 | 4.0 | 812 | 64 | 67,109 |');
    expect(markdown).toContain('| 1,000 | 10 | pglite | fts | 2.00 / 4.00 | 1.60 / 3.20 | 1.25 |');
    expect(markdown).toContain('| 1,000 | 10 | pglite | hybrid | 5.00 / 10.00 | 4.00 / 8.00 | 1.25 |');
    expect(markdown).toContain('| 1,000 | local embedder alone (1,000 texts) | 10000 | 0.1 | — | — |');
    expect(markdown).toContain('| 1,000 | powercontext pglite | hybrid | 3.13 | 6.25 | 9.38 | 3.75 | 9.50 |');
    expect(markdown).toContain('| 1,000 | minisearch | fts | 0.25 | 0.50 | 0.75 | 0.30 | 9.50 |');
    expect(markdown).toContain('| 1,000 | pglite | vector | 50.0 (4.00 / 9.00; 0) | 400 (4.00 / 9.00; 3) |');
    expect(markdown).toContain(
      '- 1,000 pglite vector, 8 clients: 200 searches, 150 lexical and 140 vector answers from memory; the benchmark process used 0.75 cores',
    );
    expect(markdown).toContain(
      '| 1,000 | pglite | 3.13 / 6.25 | 3.50 / 7.00 | 3.25 / 6.50 (30) | 0.13 / 0.25 / 0.38 |',
    );
  });

  it('lists what was not measured with its reason, and never a measured row for it', () => {
    expect(markdown).toContain('## Not measured');
    expect(markdown).toContain('- 1,000 entries, postgres: server unreachable');
    expect(markdown).toContain('- 1,000 entries, orama hybrid: the case process ended without a result');
    expect(markdown).not.toContain('powercontext postgres');
  });

  it('states the machine, the corpus and that PostgreSQL RSS excludes the server', () => {
    expect(markdown).toContain('2 CPUs (Test CPU)');
    expect(markdown).toContain(
      'load average 1.5 / 1 / 0.5 (1 / 5 / 15 min) at the start, 2 / 1.25 / 0.75 at the end',
    );
    expect(markdown).toContain('1,000 entries over 10 scopes (mean 24.4 words, 136 characters, longest 258)');
    expect(markdown).toContain('whose memory is not counted');
  });
});
