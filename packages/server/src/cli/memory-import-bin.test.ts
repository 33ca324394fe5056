import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';

// The built command line; `pnpm test` builds it first.
const BIN = fileURLToPath(new URL('../../dist/bin/powercontext.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pc-cli-import-'));
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin; with `killWhen`, kills it (SIGKILL) as soon as that poll answers true. */
function powercontext(args: string[], options: { killWhen?: () => Promise<boolean> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    const killWhen = options.killWhen;
    if (killWhen) {
      let closed = false;
      child.on('close', () => {
        closed = true;
      });
      void (async () => {
        while (!closed && !(await killWhen())) await new Promise((wait) => setTimeout(wait, 20));
        child.kill('SIGKILL');
      })();
    }
  });
}

/** `count` chat turns in the wire shape of one remember entry, one JSON object a line. */
function turns(count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      text: `turn ${index + 1}: the ${index % 2 ? 'garden' : 'invoice'} note number ${index + 1}`,
      kind: 'turn',
      sources: [{ source_id: 'chat-7', locator: `T${index + 1}` }],
      position: { source_id: `session-${Math.floor(index / 10)}`, order: index % 10 },
      metadata: { speaker: index % 2 ? 'Ana' : 'Ben' },
    }),
  );
}

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

type Summary = {
  entries: number;
  created: number;
  duplicates: number;
  batches: number;
  memory: { revision: number };
};

const STORES = [
  ['PGlite', () => ['--data-dir', join(dir, 'data')]],
  ['PostgreSQL', () => ['--database-url', database.connectionString]],
] as const;

// Each run opens the store in a new process: generous time on a loaded machine.
describe.each(STORES)('powercontext memory import (the built bin) on %s', (_name, storeFlags) => {
  it('streams a file in batches, refuses a bad line without writing its batch, and re-runs safely', {
    timeout: 300_000,
  }, async () => {
    const lines = turns(120);
    const bad = [
      ...lines.slice(0, 70),
      '{"text": "no order", "position": {"source_id": "x", "order": "first"}}',
      ...lines.slice(70),
    ];
    const scope = ['import', '--scope', 'chat'];

    const refused = await powercontext([
      'memory',
      ...scope,
      file('bad.jsonl', bad),
      '--batch-size',
      '50',
      ...storeFlags(),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.split('\n').slice(0, 2)).toEqual([
      'line 71: position.order: position.order must be a number or an array of 1-4 numbers',
      'The 50 entries up to line 50 are stored (revision 1); none of the batch with line 71. Fix the line and run the same command again: stored entries are skipped as duplicates.',
    ]);

    const listed = await powercontext([
      'memory',
      'list',
      '--scope',
      'chat',
      '--limit',
      '200',
      '--json',
      ...storeFlags(),
    ]);
    expect((JSON.parse(listed.stdout) as { entries: unknown[] }).entries).toHaveLength(50);

    // The whole file again: the 50 stored before the bad line are found as duplicates.
    const good = file('good.jsonl', lines);
    const again = await powercontext([
      'memory',
      ...scope,
      good,
      '--batch-size',
      '40',
      '--json',
      ...storeFlags(),
    ]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout) as Summary;
    expect(summary).toMatchObject({ entries: 120, created: 70, duplicates: 50, batches: 3 });
    // A batch of duplicates only writes no revision: lines 1-40 none, 41-80 and 81-120 one each.
    expect(summary.memory.revision).toBe(3);

    const all = await powercontext([
      'memory',
      'list',
      '--scope',
      'chat',
      '--limit',
      '200',
      '--json',
      ...storeFlags(),
    ]);
    const entries = (
      JSON.parse(all.stdout) as { entries: { text: string; position: unknown; sources: unknown }[] }
    ).entries;
    expect(entries).toHaveLength(120);
    expect(new Set(entries.map((entry) => entry.text)).size).toBe(120);
    const first = entries.find((entry) => entry.text.startsWith('turn 1:'));
    expect(first?.position).toEqual({ source_id: 'session-0', order: [0] });
    expect(first?.sources).toEqual([{ source_id: 'chat-7', locator: 'T1' }]);
  });

  it('prints the summary for people, quiet about progress when not on a terminal', {
    timeout: 300_000,
  }, async () => {
    const result = await powercontext([
      'memory',
      'import',
      '--scope',
      'people',
      file('people.jsonl', turns(30)),
      ...storeFlags(),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Imported 30 entries into scope "people" \(revision 1\): 30 new, 0 duplicates, 1 batches of up to 500, in \d+\.\d s \(\d+ entries\/s\)\n$/,
    );
  });
});

describe('powercontext memory import on PostgreSQL, killed part-way', () => {
  it('stores each entry once when the same import runs again', { timeout: 300_000 }, async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database.connectionString });
    await client.connect();
    try {
      const stored = async () =>
        Number(
          (
            await client
              .query(`SELECT count(*) AS n FROM pc_entry_versions WHERE scope_id = 'killed'`)
              .catch(() => ({ rows: [{ n: 0 }] }))
          ).rows[0]?.n ?? 0,
        );
      const big = file('big.jsonl', turns(2_000));
      const args = [
        'memory',
        'import',
        '--scope',
        'killed',
        big,
        '--database-url',
        database.connectionString,
      ];
      const killed = await powercontext([...args, '--batch-size', '10'], {
        killWhen: async () => (await stored()) >= 30,
      });
      expect(killed.code).toBeNull();
      const before = await stored();
      expect(before).toBeGreaterThanOrEqual(30);
      expect(before).toBeLessThan(2_000);

      const again = await powercontext([...args, '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        entries: 2_000,
        created: 2_000 - before,
        duplicates: before,
      });
      const { rows } = await client.query(
        `SELECT count(*)::int AS n, count(DISTINCT text)::int AS texts FROM pc_entry_versions WHERE scope_id = 'killed'`,
      );
      expect(rows[0]).toEqual({ n: 2_000, texts: 2_000 });
    } finally {
      await client.end();
    }
  });
});

describe('powercontext memory import: arguments', () => {
  it('checks flags and the file before opening any store', async () => {
    // A database URL nothing listens on: reaching it would fail with exit 1, not 2.
    const unreachable = ['--database-url', 'postgres://postgres@127.0.0.1:1/none'];
    const cases: [string[], string][] = [
      [
        ['--scope', 's', join(dir, 'missing.jsonl')],
        `${join(dir, 'missing.jsonl')}: cannot be read (ENOENT)`,
      ],
      [['--scope', 's', dir], `${dir}: is not a file`],
      [['--scope', 's'], 'memory import needs a FILE (JSON Lines)'],
      [['--scope', 's', 'a.jsonl', 'b.jsonl'], 'memory import takes one FILE, got 2'],
      [[join(dir, 'x.jsonl')], '--scope is required'],
      [
        ['--scope', 's', '--batch-size', '1001', 'x.jsonl'],
        '--batch-size must be an integer within 1..1000, got "1001"',
      ],
      [['--scope', 's', '--text', 'x', 'x.jsonl'], 'unknown flag --text for "memory import"'],
    ];
    for (const [args, message] of cases) {
      const result = await powercontext(['memory', 'import', ...args, ...unreachable]);
      expect([result.code, result.stderr.split('\n')[0]]).toEqual([2, message]);
    }
  });
});
