import type { StoreKind } from './scale-args.js';

/** Search limit of every measured query (the runtime's default limit). */
export const SEARCH_LIMIT = 10;
/** Queries run before measuring, per mode and per runtime, so caches and plans are warm. */
export const WARMUP_QUERIES = 20;
/** Entries per remember call. */
export const REMEMBER_BATCH_SIZE = 500;
/** Each throughput run sends at least this many searches per client. */
export const SEARCHES_PER_CLIENT = 20;
/** The embedder's cost is measured over at most this many corpus texts. */
export const EMBEDDER_SAMPLE = 10_000;

interface CorpusSpec {
  entries: number;
  scopes: number;
  seed: number;
  /** Measured queries (after WARMUP_QUERIES). */
  queries: number;
}

/** One store at one size, run in a child process of its own so its peak RSS is its own. */
export interface StoreCaseSpec extends CorpusSpec {
  kind: 'store';
  store: StoreKind;
  concurrency: number[];
  rerank: boolean;
  /** Also write every batch to the ingest floor (ingest-floor.ts) and report product/floor. */
  ingestFloor: boolean;
  /** Admin URL of the PostgreSQL server (postgres store only). */
  databaseUrl: string;
}

/** One peer system at one size, in a child process of its own. */
export interface PeerCaseSpec extends CorpusSpec {
  kind: 'peer';
  /** Index into PEER_SYSTEMS of @powercontext/search-peers. */
  peer: number;
}

export type CaseSpec = StoreCaseSpec | PeerCaseSpec;
