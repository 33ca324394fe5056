import { ArgsError, readFlags } from '@powercontext/cli-support';

export type Backend = 'pglite' | 'postgres';

export interface BenchArgs {
  entries: number;
  scopes: number;
  queries: number;
  backends: Backend[];
  databaseUrl: string;
  out: string;
  seed: number;
}

export const DEFAULT_ARGS: BenchArgs = {
  entries: 10_000,
  scopes: 10,
  queries: 200,
  backends: ['pglite', 'postgres'],
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  out: 'bench-results/search.json',
  seed: 42,
};

export const USAGE = `Usage: pnpm bench:search -- [options]
  --entries N          entries to remember, spread evenly over the scopes (default ${DEFAULT_ARGS.entries})
  --scopes N           scopes, like many users' memories (default ${DEFAULT_ARGS.scopes})
  --queries N          measured queries per search mode, after 20 warm-up queries (default ${DEFAULT_ARGS.queries})
  --backends LIST      comma-separated: pglite,postgres (default both)
  --database-url URL   existing PostgreSQL + pgvector database for the postgres backend
                       (default ${DEFAULT_ARGS.databaseUrl}; tables are pc_-prefixed, scopes are fresh per run)
  --out FILE           JSON results file (default ${DEFAULT_ARGS.out})
  --seed N             seed of the synthetic corpus and queries (default ${DEFAULT_ARGS.seed})
  --help               print this help`;

export { ArgsError };

function positiveInteger(flag: string, value: string, min = 1): number {
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new ArgsError(`${flag} must be an integer >= ${min}, got "${value}"`);
  }
  return Number(value);
}

function backends(value: string): Backend[] {
  const list = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (list.length === 0) throw new ArgsError('--backends must name at least one backend');
  for (const item of list) {
    if (item !== 'pglite' && item !== 'postgres') {
      throw new ArgsError(`--backends accepts pglite and postgres, got "${item}"`);
    }
  }
  return [...new Set(list as Backend[])];
}

/** Parses `--flag value` and `--flag=value`; a leading `--` (as pnpm may pass it) is skipped. */
export function parseArgs(argv: readonly string[]): BenchArgs | 'help' {
  const args: BenchArgs = { ...DEFAULT_ARGS, backends: [...DEFAULT_ARGS.backends] };
  const flags = readFlags(argv);
  if (flags === 'help') return 'help';
  for (const { flag, value } of flags) {
    switch (flag) {
      case '--entries':
        args.entries = positiveInteger(flag, value);
        break;
      case '--scopes':
        args.scopes = positiveInteger(flag, value);
        break;
      case '--queries':
        args.queries = positiveInteger(flag, value);
        break;
      case '--seed':
        args.seed = positiveInteger(flag, value, 0);
        break;
      case '--backends':
        args.backends = backends(value);
        break;
      case '--database-url':
        if (!/^postgres(ql)?:\/\/.+/.test(value))
          throw new ArgsError('--database-url must be a postgres:// URL');
        args.databaseUrl = value;
        break;
      case '--out':
        if (value === '') throw new ArgsError('--out must not be empty');
        args.out = value;
        break;
      default:
        throw new ArgsError(`unknown option ${flag}`);
    }
  }
  if (args.scopes > args.entries) throw new ArgsError('--scopes must not exceed --entries');
  return args;
}
