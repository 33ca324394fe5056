/**
 * `pnpm bench:startup`: how long a user waits for the `powercontext` command (issue 14), median of
 * --runs runs (default 5), measured on real processes of a built checkout:
 *
 * - `memory search` on an existing embedded data dir of 1,000 entries, wall time to exit (bound 1.0 s);
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
  --fresh-clone-runs N  runs of that row (default: --runs)`);
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
  };
}

/** A built checkout: where its `powercontext` bin is (packages/server since issue 14, apps/server before). */
class Checkout {
  readonly bin: string;
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
  }
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete out.POWERCONTEXT_SERVER_DATABASE_URL;
  delete out.POWERCONTEXT_SERVER_DATA_DIR;
  return out;
};

/** Runs `node bin args` to completion; returns the wall time in ms and the exit code. */
function runToExit(
  checkout: Checkout,
  args: string[],
): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((done) => {
    const start = performance.now();
    const child = spawn(process.execPath, [checkout.bin, ...args], {
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
): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, [checkout.bin, ...args], {
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

const MEASUREMENTS: {
  name: string;
  needsPostgres?: boolean;
  measure: (checkout: Checkout) => Promise<number>;
}[] = [
  {
    name: 'memory search (1,000 entries, embedded)',
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
      for (const c of checkouts) await m.measure(c); // warm-up (file cache), not counted
      for (let run = 0; run < options.runs; run++)
        for (const c of checkouts) add(m.name, c.label, await m.measure(c));
      const row = samples.get(m.name)!;
      console.log(
        `  ${m.name}: ${checkouts.map((c) => `${c.label} ${fmt(median(row.get(c.label)!))}`).join(', ')}`,
      );
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
    'measurement'.padEnd(42),
    'bound'.padStart(8),
    ...checkouts.map((c) => c.label.padStart(10)),
  ];
  if (options.baseline) header.push('current/baseline'.padStart(17));
  console.log(header.join('  '));
  for (const [name, row] of samples) {
    const values = checkouts.map((c) => (row.get(c.label) ? median(row.get(c.label)!) : undefined));
    const bound = BOUNDS_MS[name];
    const cells = [
      name.padEnd(42),
      (bound ? fmt(bound) : '-').padStart(8),
      ...values.map((v) => fmt(v).padStart(10)),
    ];
    if (options.baseline && values[0] !== undefined && values[1] !== undefined)
      cells.push(`${(values[0] / values[1]).toFixed(2)}x`.padStart(17));
    const within =
      bound && values[0] !== undefined ? (values[0] <= bound ? '  within bound' : '  OVER bound') : '';
    console.log(cells.join('  ') + within);
  }
}

await main();
