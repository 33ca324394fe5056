/**
 * `pnpm bench:startup`: how long a user waits for the `powercontext` command (issue 14), median of
 * --runs runs (default 5), measured on real processes of a built checkout:
 *
 * - `memory search` on an existing embedded data dir of 1,000 entries, wall time to exit (bound 1.0 s);
 * - `createRuntime()` to first hit: a Node process that imports the runtime as a library, opens the same
 *   data dir with `createRuntime()` (its defaults: V8's own flags, the `fit` buffer pool) and searches
 *   once, spawn to its first hit (library-first-hit.ts). Each run is followed by a `memory search` on the
 *   same directory, and the ratio of the two is printed per run: issue 30 bounds it at 1.2x;
 * - the same with the command's V8 flags on Node's command line (`--liftoff-only --wasm-lazy-validation
 *   --max-opt=1`, which `memory` sets for itself and an application cannot): the part of the library's gap
 *   that those flags explain, printed as a ratio the same way;
 * - `memory search --limit 0`, wall time to the refusal (a bad flag must be refused before the store opens);
 * - `mcp`: spawn to the answer of `initialize` on an existing data dir (bound 2 s);
 * - `server run`: spawn to the `listening on` line, on an existing data dir and on PostgreSQL (bound 2 s);
 * - with --fresh-clone: `git clone` of the checkout + `pnpm install --offline` (not timed), then
 *   `pnpm demo` to its first printed hit (bound 60 s).
 *
 * `--baseline DIR` measures another built checkout (for instance commit 6a3d005) the same way, run by run
 * interleaved with this one, and prints both columns and their ratio. Times are wall-clock on whatever the
 * machine is doing, which is why the two checkouts alternate. Nothing here asserts: it prints figures.
 * A `machine:` line first gives Node's own start and the cost of touching new memory on this machine, so
 * that figures from different machines (or sessions) can be set side by side.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.js';

const BOUNDS_MS: Record<string, number> = {
  'memory search (1,000 entries, embedded)': 1_000,
  'mcp ready for initialize (embedded)': 2_000,
  'server run listening (embedded)': 2_000,
  'server run listening (PostgreSQL)': 2_000,
  'fresh clone: pnpm demo to first hit': 60_000,
};

interface Options {
  runs: number;
  baseline: string | undefined;
  databaseUrl: string | undefined;
  freshClone: boolean;
  freshCloneRuns: number;
  only: string | undefined;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: {
      runs: { type: 'string', default: '5' },
      baseline: { type: 'string' },
      'database-url': { type: 'string' },
      'no-postgres': { type: 'boolean', default: false },
      'fresh-clone': { type: 'boolean', default: false },
      'fresh-clone-runs': { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`Usage: pnpm bench:startup [--runs N] [--baseline DIR] [--database-url URL | --no-postgres] [--fresh-clone [--fresh-clone-runs N]]

  --runs N              runs per measurement, the median is printed (default 5)
  --baseline DIR        another built checkout to measure the same way (e.g. a checkout of 6a3d005)
  --database-url URL    PostgreSQL server for the server-run row: a throw-away database is created on it
                        (default: POWERCONTEXT_BENCH_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)
  --no-postgres         skip the PostgreSQL row
  --fresh-clone         also time a fresh clone's \`pnpm demo\` to its first hit (slow: builds every run)
  --fresh-clone-runs N  runs of that row (default: --runs)
  --only TEXT           only the rows whose name contains TEXT (e.g. createRuntime: the library rows)`);
    process.exit(0);
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  const freshCloneRuns = values['fresh-clone-runs'] === undefined ? runs : Number(values['fresh-clone-runs']);
  if (!Number.isInteger(freshCloneRuns) || freshCloneRuns < 1)
    throw new Error('--fresh-clone-runs must be a positive integer');
  const databaseUrl = values['no-postgres']
    ? undefined
    : (values['database-url'] ??
      process.env.POWERCONTEXT_BENCH_DATABASE_URL ??
      'postgres://postgres@127.0.0.1:5432/postgres');
  return {
    runs,
    baseline: values.baseline === undefined ? undefined : resolve(values.baseline),
    databaseUrl,
    freshClone: values['fresh-clone'],
    freshCloneRuns,
    only: values.only,
  };
}

/** A built checkout: where its `powercontext` bin is (packages/server since issue 14, apps/server before). */
class Checkout {
  readonly bin: string;
  /** The library row's script, when this checkout has it (built apps/bench). */
  readonly libraryScript: string | undefined;
  dataDir = '';
  database: ThrowawayDatabase | undefined;

  constructor(
    readonly label: string,
    readonly root: string,
  ) {
    const candidates = [
      'packages/server/dist/bin/powercontext.js',
      'packages/server/dist/bin.js',
      'apps/server/dist/bin.js',
    ].map((p) => join(root, p));
    const bin = candidates.find((candidate) => existsSync(candidate));
    if (!bin)
      throw new Error(`${root}: no built powercontext bin (${candidates.join(' or ')}); build it first`);
    this.bin = bin;
    const script = join(root, 'apps/bench/dist/library-first-hit.js');
    this.libraryScript = existsSync(script) ? script : undefined;
  }
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete out.POWERCONTEXT_SERVER_DATABASE_URL;
  delete out.POWERCONTEXT_SERVER_DATA_DIR;
  return out;
};

/** Runs `node bin args` (or `node script args`) to completion; returns the wall time in ms and the exit code. */
function runToExit(
  checkout: Checkout,
  args: string[],
  script = checkout.bin,
): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((done) => {
    const start = performance.now();
    const child = spawn(process.execPath, [script, ...args], {
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ ms: performance.now() - start, code, stderr }));
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('close', () => done());
    child.kill(signal);
  });
}

/** Spawns `node bin args` and returns the ms until `ready(line)` holds for a stdout line; then stops it. */
async function timeUntilLine(
  checkout: Checkout,
  args: string[],
  ready: (line: string) => boolean,
  afterSpawn?: (child: ChildProcess) => void,
  finish: (child: ChildProcess) => Promise<void> = (child) => stop(child, 'SIGTERM'),
  script = checkout.bin,
  nodeArgs: string[] = [],
): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<null>((done) => child.on('close', () => done(null)));
  const lines = createInterface({ input: child.stdout! });
  afterSpawn?.(child);
  const at = await Promise.race([
    new Promise<number>((done) => lines.on('line', (line) => ready(line) && done(performance.now() - start))),
    exited,
  ]);
  if (at === null)
    throw new Error(`${checkout.label}: ${args.join(' ')} exited before it was ready:\n${stderr}`);
  await finish(child);
  return at;
}

async function seed(checkout: Checkout): Promise<void> {
  checkout.dataDir = mkdtempSync(join(tmpdir(), `pc-startup-${checkout.label}-`));
  const topics = [
    'deploy',
    'garden',
    'invoice',
    'holiday',
    'backup',
    'release',
    'review',
    'budget',
    'hiring',
    'outage',
  ];
  for (let batch = 0; batch < 4; batch++) {
    const texts: string[] = [];
    for (let i = 0; i < 250; i++) {
      const n = batch * 250 + i;
      texts.push(
        '--text',
        `Note ${n}: the ${topics[n % 10]} for team ${n % 17} moves to ${topics[(n * 7) % 10]} after the ${topics[(n * 3) % 10]} meeting.`,
      );
    }
    const result = await runToExit(checkout, [
      'memory',
      'remember',
      '--scope',
      'bench',
      ...texts,
      '--data-dir',
      checkout.dataDir,
    ]);
    if (result.code !== 0) throw new Error(`${checkout.label}: seeding failed:\n${result.stderr}`);
  }
}

const SEARCH_ROW = 'memory search (1,000 entries, embedded)';
const LIBRARY_ROW = 'createRuntime() to first hit (same data dir)';
const FLAGGED_LIBRARY_ROW = "createRuntime() with the command's V8 flags";
/** Issue 30: the library's start within 1.2x the command's `memory search`. */
const LIBRARY_BOUND_RATIO = 1.2;
/** The V8 flags `powercontext memory` sets for its own process (packages/server/src/main.ts). */
const COMMAND_V8_FLAGS = ['--liftoff-only', '--wasm-lazy-validation', '--max-opt=1'];

/** The library's start: spawn of library-first-hit.js (with `nodeArgs`) to its `first hit` line. */
const libraryFirstHit = (c: Checkout, nodeArgs: string[] = []) =>
  timeUntilLine(
    c,
    [c.dataDir, 'bench', 'when is the deploy meeting?'],
    (line) => line === 'first hit',
    undefined,
    (child) => new Promise((done) => (child.exitCode === null ? child.once('close', () => done()) : done())),
    c.libraryScript,
    nodeArgs,
  );

const MEASUREMENTS: {
  name: string;
  needsPostgres?: boolean;
  /** Skipped for a checkout without it (an older baseline). */
  available?: (checkout: Checkout) => boolean;
  measure: (checkout: Checkout) => Promise<number>;
  /** Each run is followed by a `memory search` run, timed as the row's own paired row (see pairedRow). */
  pairedWithSearch?: boolean;
}[] = [
  {
    name: SEARCH_ROW,
    measure: async (c) => {
      const r = await runToExit(c, [
        'memory',
        'search',
        '--scope',
        'bench',
        '--query',
        'when is the deploy meeting?',
        '--limit',
        '5',
        '--data-dir',
        c.dataDir,
      ]);
      if (r.code !== 0) throw new Error(`${c.label}: memory search failed:\n${r.stderr}`);
      return r.ms;
    },
  },
  {
    name: LIBRARY_ROW,
    available: (c) => c.libraryScript !== undefined,
    measure: (c) => libraryFirstHit(c),
    pairedWithSearch: true,
  },
  {
    name: FLAGGED_LIBRARY_ROW,
    available: (c) => c.libraryScript !== undefined,
    measure: (c) => libraryFirstHit(c, COMMAND_V8_FLAGS),
    pairedWithSearch: true,
  },
  {
    name: 'memory search --limit 0 refused',
    measure: async (c) => {
      const r = await runToExit(c, [
        'memory',
        'search',
        '--scope',
        'bench',
        '--query',
        'deploy',
        '--limit',
        '0',
        '--data-dir',
        c.dataDir,
      ]);
      if (r.code === 0) throw new Error(`${c.label}: --limit 0 was accepted`);
      return r.ms;
    },
  },
  {
    name: 'mcp ready for initialize (embedded)',
    measure: (c) =>
      timeUntilLine(
        c,
        ['mcp', '--data-dir', c.dataDir],
        (line) => line.includes('"id":1') && line.includes('"result"'),
        (child) =>
          child.stdin?.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`,
          ),
        async (child) => {
          const closed = new Promise<void>((done) => child.once('close', () => done()));
          child.stdin?.end();
          await Promise.race([closed, new Promise((done) => setTimeout(done, 30_000))]);
          await stop(child, 'SIGKILL');
        },
      ),
  },
  {
    name: 'server run listening (embedded)',
    measure: (c) =>
      timeUntilLine(c, ['server', 'run', '--port', '0', '--data-dir', c.dataDir], (line) =>
        line.startsWith('listening on '),
      ),
  },
  {
    name: 'server run listening (PostgreSQL)',
    needsPostgres: true,
    measure: (c) =>
      timeUntilLine(c, ['server', 'run', '--port', '0', '--database-url', c.database!.url], (line) =>
        line.startsWith('listening on '),
      ),
  },
];

/** Clones the checkout, installs offline (not timed), then times `pnpm demo` to its first printed hit. */
async function freshCloneDemo(checkout: Checkout): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), `pc-clone-${checkout.label}-`));
  try {
    const sh = (cmd: string, args: string[], cwd: string) => {
      const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: env({ CI: 'true' }) });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    };
    sh('git', ['clone', '--quiet', '--local', '--no-hardlinks', checkout.root, dir], tmpdir());
    sh('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter', 'silent'], dir);
    const start = performance.now();
    const child = spawn('pnpm', ['demo'], {
      cwd: dir,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const lines = createInterface({ input: child.stdout! });
    const exited = new Promise<null>((done) => child.on('close', () => done(null)));
    const at = await Promise.race([
      new Promise<number>((done) =>
        lines.on('line', (line) => /^\s+1\. score /.test(line) && done(performance.now() - start)),
      ),
      exited,
    ]);
    if (at === null) throw new Error(`${checkout.label}: pnpm demo exited without a hit`);
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await exited;
    return at;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Two figures of the machine itself, so that runs on different machines (or on one machine at a busier
 * moment) can be compared: Node's own start and exit (`node -e ''`), and the time to touch 128 MB of
 * new WebAssembly memory in a fresh process (a page at a time, as PostgreSQL's first writes to its
 * memory do). PGlite's start is dominated by both; a virtual machine whose page faults are slow shows
 * it in the second figure first. Medians of `runs` each.
 */
async function machineFigures(runs: number): Promise<{ nodeStartMs: number; touch128MbMs: number }> {
  const touch = `const m = new WebAssembly.Memory({ initial: 2048 }); const u = new Uint8Array(m.buffer);
    const t = performance.now(); for (let i = 0; i < u.length; i += 4096) u[i] = 1;
    console.log(performance.now() - t);`;
  const starts: number[] = [];
  const touches: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const bare = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
    starts.push(performance.now() - start);
    const touched = spawnSync(process.execPath, ['-e', touch], { encoding: 'utf8' });
    if (bare.status !== 0 || touched.status !== 0) throw new Error(`node -e failed:\n${touched.stderr}`);
    touches.push(Number(touched.stdout));
  }
  return { nodeStartMs: median(starts), touch128MbMs: median(touches) };
}

/** The command's search timed in turn with a row (its own row of the table). */
const pairedRow = (name: string) =>
  name === LIBRARY_ROW
    ? 'memory search, in turn with createRuntime()'
    : 'memory search, in turn with the flags row';

/**
 * A library row against the command's search, run by run (each pair ran back to back): the median of
 * the per-run ratios, their range, and the ratio of the medians; the default row against issue 30's bound.
 */
function libraryRatioLine(samples: Map<string, Map<string, number[]>>, name: string, label: string): string {
  const library = samples.get(name)?.get(label) ?? [];
  const search = samples.get(pairedRow(name))?.get(label) ?? [];
  const title = name === LIBRARY_ROW ? 'createRuntime()/memory search' : `${name}/memory search`;
  if (library.length === 0 || library.length !== search.length) return `${title}: -`;
  const ratios = library.map((ms, run) => ms / search[run]!);
  const verdict = name !== LIBRARY_ROW ? '' : median(ratios) <= LIBRARY_BOUND_RATIO ? '; within' : '; OVER';
  return `${title} (${label}): median of run ratios ${median(ratios).toFixed(2)}x (runs ${ratios.map((r) => r.toFixed(2)).join(', ')}), ratio of medians ${(median(library) / median(search)).toFixed(2)}x${verdict}${verdict ? ` ${LIBRARY_BOUND_RATIO}x` : ''}`;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fmt = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const here = fileURLToPath(new URL('../../..', import.meta.url));
  const checkouts = [new Checkout('current', here)];
  if (options.baseline) checkouts.push(new Checkout('baseline', options.baseline));
  for (const c of checkouts) console.log(`${c.label}: ${c.bin}`);
  console.log(`node ${process.version}, ${options.runs} runs per row (median), checkouts interleaved`);
  const machine = await machineFigures(options.runs);
  console.log(
    `machine: node -e '' ${machine.nodeStartMs.toFixed(0)} ms, touching 128 MB of new memory ${machine.touch128MbMs.toFixed(0)} ms (medians)\n`,
  );

  const samples = new Map<string, Map<string, number[]>>();
  const add = (name: string, label: string, ms: number) => {
    const row = samples.get(name) ?? new Map<string, number[]>();
    samples.set(name, row);
    row.set(label, [...(row.get(label) ?? []), ms]);
  };
  try {
    for (const c of checkouts) {
      process.stdout.write(`seeding 1,000 entries for ${c.label} ... `);
      await seed(c);
      if (options.databaseUrl) {
        c.database = await createThrowawayDatabase(options.databaseUrl);
        // The first start migrates the new database; the timed starts find it up to date.
        await timeUntilLine(c, ['server', 'run', '--port', '0', '--database-url', c.database.url], (l) =>
          l.startsWith('listening on '),
        );
      }
      console.log('done');
    }
    for (const m of MEASUREMENTS) {
      if (m.needsPostgres && !options.databaseUrl) continue;
      if (options.only !== undefined && !m.name.includes(options.only)) continue;
      const measured = checkouts.filter((c) => m.available?.(c) ?? true);
      for (const c of measured) await m.measure(c); // warm-up (file cache), not counted
      // A library row alternates with the command's search run by run, so both see the same machine.
      const paired = m.pairedWithSearch ? MEASUREMENTS.find((other) => other.name === SEARCH_ROW) : undefined;
      for (let run = 0; run < options.runs; run++)
        for (const c of measured) {
          add(m.name, c.label, await m.measure(c));
          if (paired) add(pairedRow(m.name), c.label, await paired.measure(c));
        }
      const row = samples.get(m.name)!;
      console.log(
        `  ${m.name}: ${measured.map((c) => `${c.label} ${fmt(median(row.get(c.label)!))}`).join(', ')}`,
      );
      if (paired) console.log(`    ${libraryRatioLine(samples, m.name, 'current')}`);
    }
    if (options.freshClone) {
      const name = 'fresh clone: pnpm demo to first hit';
      for (let run = 0; run < options.freshCloneRuns; run++) {
        for (const c of checkouts) {
          const ms = await freshCloneDemo(c);
          add(name, c.label, ms);
          console.log(`  ${name}: ${c.label} run ${run + 1}: ${fmt(ms)}`);
        }
      }
    }
  } finally {
    for (const c of checkouts) {
      if (c.dataDir) rmSync(c.dataDir, { recursive: true, force: true });
      await c.database?.drop().catch(() => {});
    }
  }

  console.log('\nstart-up times (median wall clock)');
  const header = [
    'measurement'.padEnd(46),
    'bound'.padStart(8),
    ...checkouts.map((c) => c.label.padStart(10)),
  ];
  if (options.baseline) header.push('current/baseline'.padStart(17));
  console.log(header.join('  '));
  for (const [name, row] of samples) {
    const values = checkouts.map((c) => (row.get(c.label) ? median(row.get(c.label)!) : undefined));
    const bound = BOUNDS_MS[name];
    const cells = [
      name.padEnd(46),
      (bound ? fmt(bound) : '-').padStart(8),
      ...values.map((v) => fmt(v).padStart(10)),
    ];
    if (options.baseline && values[0] !== undefined && values[1] !== undefined)
      cells.push(`${(values[0] / values[1]).toFixed(2)}x`.padStart(17));
    const within =
      bound && values[0] !== undefined ? (values[0] <= bound ? '  within bound' : '  OVER bound') : '';
    console.log(cells.join('  ') + within);
  }
  for (const name of [LIBRARY_ROW, FLAGGED_LIBRARY_ROW])
    if (samples.has(name)) for (const c of checkouts) console.log(libraryRatioLine(samples, name, c.label));
}

await main();
