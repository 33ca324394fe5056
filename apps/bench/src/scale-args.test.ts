import { ArgsError } from '@powercontext/cli-support';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCALE_ARGS, defaultDatabaseUrl, parseScaleArgs } from './scale-args.js';

describe('parseScaleArgs', () => {
  it('defaults to 10k and 100k entries on both stores, 1/8/32 clients, peers and the rerank run', () => {
    expect(parseScaleArgs([], {})).toEqual({
      ...DEFAULT_SCALE_ARGS,
      sizes: [10_000, 100_000],
      stores: ['pglite', 'postgres'],
      concurrency: [1, 8, 32],
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
    });
  });

  it('reads lists, numbers and the boolean switches, after a leading -- as pnpm passes it', () => {
    const args = parseScaleArgs(
      [
        '--',
        '--sizes',
        '2000,500',
        '--stores=postgres',
        '--concurrency',
        '1,4',
        '--queries',
        '50',
        '--scopes=5',
        '--seed',
        '0',
        '--out',
        'tmp/results',
        '--no-peers',
        '--no-rerank',
        '--no-ingest-floor',
      ],
      {},
    );
    expect(args).toMatchObject({
      sizes: [2000, 500],
      stores: ['postgres'],
      concurrency: [1, 4],
      queries: 50,
      scopes: 5,
      seed: 0,
      out: 'tmp/results',
      peers: false,
      rerank: false,
      ingestFloor: false,
    });
    expect(parseScaleArgs([], {})).toMatchObject({ ingestFloor: true });
  });

  it('takes the admin database URL from POWERCONTEXT_TEST_DATABASE_URL unless --database-url is given', () => {
    const env = { POWERCONTEXT_TEST_DATABASE_URL: 'postgres://bench@db:5433/admin' };
    expect(defaultDatabaseUrl(env)).toBe('postgres://bench@db:5433/admin');
    expect(parseScaleArgs([], env)).toMatchObject({ databaseUrl: 'postgres://bench@db:5433/admin' });
    expect(parseScaleArgs(['--database-url', 'postgresql://x@y/z'], env)).toMatchObject({
      databaseUrl: 'postgresql://x@y/z',
    });
  });

  it('rejects unknown stores, bad numbers, more scopes than entries and unknown flags, naming the flag', () => {
    const fails = (argv: string[], message: RegExp) => {
      expect(() => parseScaleArgs(argv, {})).toThrow(ArgsError);
      expect(() => parseScaleArgs(argv, {})).toThrow(message);
    };
    fails(['--stores', 'sqlite'], /--stores accepts pglite and postgres/);
    fails(['--sizes', '10k'], /--sizes must be an integer/);
    fails(['--sizes', '0'], /--sizes must be an integer within 1\.\./);
    fails(['--concurrency', '0'], /--concurrency/);
    fails(['--queries', ''], /--queries/);
    fails(['--sizes', '5', '--scopes', '10'], /--scopes \(10\) must not exceed the smallest size \(5\)/);
    fails(['--database-url', 'mysql://x'], /--database-url/);
    fails(['--no-peers=yes'], /takes no value/);
    fails(['--entries', '5'], /unknown flag --entries/);
  });

  it('returns help for --help', () => {
    expect(parseScaleArgs(['--sizes', '5', '--help'], {})).toBe('help');
  });
});
