import { ArgsError, readFlags } from '@powercontext/cli-support';

export const STORES = ['pglite', 'postgres'] as const;
export type StoreKind = (typeof STORES)[number];

export interface ScaleArgs {
  /** Corpus sizes in entries, each a fresh store. */
  sizes: number[];
  stores: StoreKind[];
  /** Concurrent clients of the throughput runs. */
  concurrency: number[];
  /** Measured queries per search mode, after the warm-up. */
  queries: number;
  /** Scopes the entries are spread over (entry i goes to scope i % scopes). */
  scopes: number;
  seed: number;
  out: string;
  /** Where the throw-away PostgreSQL databases are created (and dropped). */
  databaseUrl: string;
  peers: boolean;
  rerank: boolean;
  /** Write every batch to the ingest floor too (ingest-floor.ts). */
  ingestFloor: boolean;
}

/** The admin URL the PostgreSQL tests use too; the benchmark only creates and drops its own databases there. */
export function defaultDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  return env.POWERCONTEXT_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

export const DEFAULT_SCALE_ARGS: Omit<ScaleArgs, 'databaseUrl'> = {
  sizes: [10_000, 100_000],
  stores: ['pglite', 'postgres'],
  concurrency: [1, 8, 32],
  queries: 200,
  scopes: 10,
  seed: 42,
  out: 'bench-results',
  peers: true,
  rerank: true,
  ingestFloor: true,
};

/** The largest corpus the benchmark generates (the generator holds it in memory). */
export const MAX_SIZE = 1_000_000;

export const SCALE_USAGE = `Usage: pnpm bench [options]
  --sizes LIST          corpus sizes in entries, comma-separated (default ${DEFAULT_SCALE_ARGS.sizes.join(',')})
  --stores LIST         pglite,postgres (default both); each size gets a fresh store
  --concurrency LIST    concurrent clients of the throughput runs (default ${DEFAULT_SCALE_ARGS.concurrency.join(',')})
  --queries N           measured queries per search mode, after the warm-up (default ${DEFAULT_SCALE_ARGS.queries})
  --scopes N            scopes the entries are spread over evenly (default ${DEFAULT_SCALE_ARGS.scopes})
  --seed N              seed of the synthetic corpus and its queries (default ${DEFAULT_SCALE_ARGS.seed})
  --out DIR             where scale.json and scale.md are written (default ${DEFAULT_SCALE_ARGS.out})
  --database-url URL    PostgreSQL + pgvector server where a throw-away database is created per size and
                        dropped afterwards (default POWERCONTEXT_TEST_DATABASE_URL, else
                        postgres://postgres@127.0.0.1:5432/postgres)
  --no-peers            skip MiniSearch and Orama
  --no-rerank           skip the rerank-stage overhead run (instant fake reranker)
  --no-ingest-floor     skip the ingest floor (the same batches through hand-written SQL, interleaved)
  --help                print this help`;

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ArgsError(`${flag} must be an integer within ${min}..${max}, got "${value}"`);
  }
  return Number(value);
}

function list(flag: string, value: string): string[] {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new ArgsError(`${flag} must name at least one value`);
  return [...new Set(items)];
}

function stores(value: string): StoreKind[] {
  return list('--stores', value).map((item) => {
    if (!(STORES as readonly string[]).includes(item)) {
      throw new ArgsError(`--stores accepts ${STORES.join(' and ')}, got "${item}"`);
    }
    return item as StoreKind;
  });
}

const BOOLEAN_FLAGS = new Set(['--no-peers', '--no-rerank', '--no-ingest-floor']);
const VALUE_FLAGS = [
  '--concurrency',
  '--database-url',
  '--out',
  '--queries',
  '--scopes',
  '--seed',
  '--sizes',
  '--stores',
];

/** Parses `--flag value` and `--flag=value`; a leading `--` (as pnpm may pass it) is skipped. */
export function parseScaleArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): ScaleArgs | 'help' {
  const args: ScaleArgs = {
    ...DEFAULT_SCALE_ARGS,
    sizes: [...DEFAULT_SCALE_ARGS.sizes],
    stores: [...DEFAULT_SCALE_ARGS.stores],
    concurrency: [...DEFAULT_SCALE_ARGS.concurrency],
    databaseUrl: defaultDatabaseUrl(env),
  };
  const flags = readFlags(argv, { values: VALUE_FLAGS, booleans: [...BOOLEAN_FLAGS] });
  if (flags === 'help') return 'help';
  for (const { flag, value } of flags) {
    switch (flag) {
      case '--sizes':
        args.sizes = list(flag, value).map((item) => integer(flag, item, 1, MAX_SIZE));
        break;
      case '--stores':
        args.stores = stores(value);
        break;
      case '--concurrency':
        args.concurrency = list(flag, value).map((item) => integer(flag, item, 1, 1024));
        break;
      case '--queries':
        args.queries = integer(flag, value, 1);
        break;
      case '--scopes':
        args.scopes = integer(flag, value, 1);
        break;
      case '--seed':
        args.seed = integer(flag, value, 0, 0xffffffff);
        break;
      case '--out':
        if (value === '') throw new ArgsError('--out must not be empty');
        args.out = value;
        break;
      case '--database-url':
        if (!/^postgres(ql)?:\/\/.+/.test(value)) {
          throw new ArgsError('--database-url must be a postgres:// or postgresql:// URL');
        }
        args.databaseUrl = value;
        break;
      case '--no-peers':
        args.peers = false;
        break;
      case '--no-rerank':
        args.rerank = false;
        break;
      case '--no-ingest-floor':
        args.ingestFloor = false;
        break;
      default:
        throw new ArgsError(`unknown option ${flag}`);
    }
  }
  const smallest = Math.min(...args.sizes);
  if (args.scopes > smallest) {
    throw new ArgsError(`--scopes (${args.scopes}) must not exceed the smallest size (${smallest})`);
  }
  return args;
}
