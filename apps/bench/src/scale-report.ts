import { z } from 'zod';
import { ingestFloorSchema } from './ingest-floor-report.js';

/**
 * The documented format of `<out>/scale.json`, the scale benchmark's result. The benchmark validates
 * what it writes against this schema (after a JSON round trip). Times are milliseconds, rates are per
 * second, memory and storage are MB (2^20 bytes). A case that could not run is reported with
 * `measured: false` and a reason, never with made-up figures.
 */

const nonNegative = z.number().min(0);
const count = z.int().min(0);

export const latencySchema = z.strictObject({
  p50_ms: nonNegative,
  p95_ms: nonNegative,
  p99_ms: nonNegative,
  mean_ms: nonNegative,
});

export const SEARCH_MODES = ['fts', 'vector', 'hybrid'] as const;
export type BenchSearchMode = (typeof SEARCH_MODES)[number];

const modeLatencySchema = latencySchema.extend({ mean_hits: nonNegative });

const ingestSchema = z.strictObject({
  /** Entries handed to remember (or to the peer's index). */
  entries: count,
  /** Entries the store created (remember reports exact duplicates; the corpus has none). */
  created: count.optional(),
  seconds: nonNegative,
  entries_per_second: nonNegative,
  /** Entries per remember call. */
  batch_size: z.int().min(1).optional(),
  /** Entries per second of each successive 10,000 entries created (issue 28: does a large scope slow down?). */
  entries_per_second_by_10k: z.array(nonNegative).optional(),
});

/** One-entry remembers into a small scope while another scope holds a large corpus (issue 28). */
export const smallScopeWritesSchema = z.strictObject({
  /** Entries of the large scope at the time. */
  large_scope_entries: count,
  remembers: count,
  p50_ms: nonNegative,
  p95_ms: nonNegative,
});
export type SmallScopeWrites = z.infer<typeof smallScopeWritesSchema>;

export const throughputSchema = z.strictObject({
  mode: z.enum(SEARCH_MODES),
  clients: z.int().min(1),
  searches: count,
  /** Set on the runs with writes: one task in this many remembered an entry instead of searching. */
  writes_every: z.int().min(2).optional(),
  writes: count.optional(),
  /** Searches and writes the store could not answer (store_unavailable: the server's 503 database_unavailable). */
  unavailable: count,
  /** Channel answers of the run's searches that the indexes in memory gave (each search runs both channels). */
  lexical_from_memory: count.optional(),
  vector_from_memory: count.optional(),
  /** CPU time of the benchmark process over the run's wall time, in cores (PostgreSQL's processes excluded). */
  client_cpu_share: nonNegative.optional(),
  seconds: nonNegative,
  searches_per_second: nonNegative,
  p50_ms: nonNegative,
  p95_ms: nonNegative,
});

export const rerankOverheadSchema = z.strictObject({
  mode: z.literal('hybrid'),
  /** The coarse pool with a reranker: max(limit, candidate limit). */
  candidate_limit: z.int().min(1),
  /** Hybrid search with limit 10 and no reranker (the same run as search.hybrid). */
  without_reranker: latencySchema,
  /** The same queries with the instant fake reranker injected: the whole search call. */
  with_instant_reranker: latencySchema,
  /** trace.latencies.coarseMs: the coarse path with the larger pool. */
  coarse_ms: latencySchema,
  /** trace.latencies.rerankMs: the stage itself (gate, deadline, the reranker call, validation, mapping). */
  stage_ms: latencySchema,
});

const floorModeSchema = z.strictObject({
  /** Measured queries (after the warm-up), each run by the product and by the floor, interleaved. */
  queries: count,
  product_p50_ms: nonNegative,
  product_p95_ms: nonNegative,
  floor_p50_ms: nonNegative,
  floor_p95_ms: nonNegative,
  /** product p50 / floor p50. */
  ratio_p50: nonNegative,
});

/** The search floor (issue 13): hand-written SQL with the product's semantics on its own tables. */
export const searchFloorSchema = z.strictObject({
  fts: floorModeSchema,
  /** Absent when every scope queried is searched through its HNSW index (the floor's cosine is exact). */
  vector: floorModeSchema.optional(),
  hybrid: floorModeSchema.optional(),
});
export type SearchFloor = z.infer<typeof searchFloorSchema>;

/** {1 write, then S searches} in one scope (writes-between-searches.ts, issue 28). */
export const writesBetweenSearchesSchema = z.strictObject({
  /** The scope written and searched. */
  scope: z.string().min(1),
  /** Hybrid p50 of the same scope with no writes, measured in this phase before the rows. */
  static_p50_ms: nonNegative,
  rows: z.array(
    z.strictObject({
      searches_per_write: z.number().int().positive(),
      loops: z.number().int().positive(),
      search_p50_ms: nonNegative,
      search_p95_ms: nonNegative,
      /** search p50 / static p50. */
      ratio_p50: nonNegative,
      write_p50_ms: nonNegative,
      /** Channel answers that came from the indexes in memory, of the searches run (each runs both). */
      lexical_from_memory: z.number().int().nonnegative(),
      vector_from_memory: z.number().int().nonnegative(),
      searches: z.number().int().positive(),
      /** Milliseconds spent moving the indexes forward by a revision's delta, per write (both channels). */
      catch_up_ms_per_write: nonNegative,
    }),
  ),
});
export type WritesBetweenSearches = z.infer<typeof writesBetweenSearchesSchema>;

/** Hybrid searches with filters keeping 1% and 50% of one scope, against the unfiltered p50 (RFC 0014). */
export const filteredSearchesSchema = z.strictObject({
  unfiltered_p50_ms: nonNegative,
  rows: z.array(
    z.strictObject({
      filter: z.string().min(1),
      kept_share: nonNegative,
      p50_ms: nonNegative,
      p95_ms: nonNegative,
      /** filtered p50 / unfiltered p50 of the same run. */
      ratio_p50: nonNegative,
      mean_hits: nonNegative,
    }),
  ),
});
export type FilteredSearches = z.infer<typeof filteredSearchesSchema>;

export const storeResultSchema = z.strictObject({
  store: z.enum(['pglite', 'postgres']),
  measured: z.literal(true),
  ingest: ingestSchema,
  /** Hand-written batched SQL writing the same rows, interleaved batch by batch (ingest-floor.ts). */
  ingest_floor: ingestFloorSchema.optional(),
  search: z.strictObject({ fts: modeLatencySchema, vector: modeLatencySchema, hybrid: modeLatencySchema }),
  throughput: z.array(throughputSchema),
  rerank_overhead: rerankOverheadSchema.optional(),
  /** process.resourceUsage().maxRSS of the process that ran this case alone. */
  peak_rss_mb: nonNegative,
  /** On-disk size after the run: the PGlite data dir, or pg_database_size. */
  storage_mb: nonNegative.optional(),
  /** The on-disk size divided by the entries ingested. */
  bytes_per_entry: nonNegative.optional(),
  /** PostgreSQL only: product against the search floor, per mode. */
  search_floor: searchFloorSchema.optional(),
  /** {1 write, then S searches} in one scope, against its static p50 (issue 28). */
  writes_between_searches: writesBetweenSearchesSchema.optional(),
  /** Filtered hybrid searches of the first scope (RFC 0014). */
  filtered_searches: filteredSearchesSchema.optional(),
  small_scope_writes: smallScopeWritesSchema.optional(),
  note: z.string().min(1).optional(),
});

export const peerResultSchema = z.strictObject({
  system: z.string().min(1),
  mode: z.string().min(1),
  measured: z.literal(true),
  ingest: ingestSchema,
  search: modeLatencySchema,
  peak_rss_mb: nonNegative,
});

const unmeasuredStoreSchema = z.strictObject({
  store: z.enum(['pglite', 'postgres']),
  measured: z.literal(false),
  reason: z.string().min(1),
});

const unmeasuredPeerSchema = z.strictObject({
  system: z.string().min(1),
  mode: z.string().min(1),
  measured: z.literal(false),
  reason: z.string().min(1),
});

export const sizeResultSchema = z.strictObject({
  entries: z.int().min(1),
  scopes: z.int().min(1),
  corpus: z.strictObject({
    mean_words: nonNegative,
    mean_chars: nonNegative,
    max_chars: count,
  }),
  /** The default local embedder alone, in process, over (up to 10,000 of) the corpus texts. */
  embedder: z.strictObject({ entries: count, seconds: nonNegative, entries_per_second: nonNegative }),
  stores: z.array(z.discriminatedUnion('measured', [storeResultSchema, unmeasuredStoreSchema])),
  peers: z.array(z.discriminatedUnion('measured', [peerResultSchema, unmeasuredPeerSchema])),
});

export const scaleReportSchema = z.strictObject({
  benchmark: z.literal('scale'),
  generated_at: z.string().min(1),
  machine: z.strictObject({
    cpus: z.int().min(1),
    cpu_model: z.string(),
    total_memory_mb: nonNegative,
    /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended: other work on the machine. */
    load_average_start: z.array(nonNegative).length(3),
    load_average_end: z.array(nonNegative).length(3),
    node: z.string().min(1),
    platform: z.string().min(1),
  }),
  config: z.strictObject({
    sizes: z.array(z.int().min(1)),
    stores: z.array(z.enum(['pglite', 'postgres'])),
    concurrency: z.array(z.int().min(1)),
    queries: z.int().min(1),
    warmup_queries: count,
    scopes: z.int().min(1),
    seed: count,
    limit: z.int().min(1),
    batch_size: z.int().min(1),
    embedding_profile: z.string().min(1),
    retrieval_policy: z.string().min(1),
  }),
  sizes: z.array(sizeResultSchema),
});

export type Latency = z.infer<typeof latencySchema>;
export type ModeLatency = z.infer<typeof modeLatencySchema>;
export type Throughput = z.infer<typeof throughputSchema>;
export type RerankOverhead = z.infer<typeof rerankOverheadSchema>;
export type StoreResult = z.infer<typeof storeResultSchema>;
export type PeerResult = z.infer<typeof peerResultSchema>;
export type StoreOutcome = z.infer<typeof sizeResultSchema>['stores'][number];
export type PeerOutcome = z.infer<typeof sizeResultSchema>['peers'][number];
export type SizeResult = z.infer<typeof sizeResultSchema>;
export type ScaleReport = z.infer<typeof scaleReportSchema>;

/** Validates a report exactly as it will be read back from disk; throws naming the first issue. */
export function validateScaleReport(report: unknown): ScaleReport {
  const parsed = scaleReportSchema.safeParse(JSON.parse(JSON.stringify(report)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`scale.json does not match its schema at ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
