import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScriptedReranker } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { directorySnapshot } from '../testing-support/directory-snapshot.js';
import { type MemoryCommandOptions, runMemoryCommand } from './memory-command.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-memory-'));
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
});

afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `powercontext memory ...argv` in process and captures what it prints. */
async function run(argv: string[], options: MemoryCommandOptions = { runtime }) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  const code = await runMemoryCommand(argv, options);
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

async function runJson<T = Record<string, unknown>>(argv: string[]): Promise<T> {
  const result = await run([...argv, '--json']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as T;
}

interface Remembered {
  memory: { artifact_id: string; scope_id: string; revision: number };
  entries: { entry_id: string; entry_version_id: string; status: string }[];
}

describe('powercontext memory', () => {
  it('remembers entries and prints their ids and statuses', async () => {
    const human = await run([
      'remember',
      '--scope',
      'cli',
      '--text',
      'We deploy on Fridays only after the freeze review.',
      '--text',
      'The staging database is rebuilt every night.',
      '--source',
      'standup-12',
      '--locator',
      'turn-3',
      '--metadata',
      '{"team":"platform"}',
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^Stored 2 new entries of 2 in scope "cli" \(revision 1\)\n {2}created {4}[0-9a-f-]{36}\n {2}created {4}[0-9a-f-]{36}$/,
    );

    const again = await runJson<Remembered>([
      'remember',
      '--scope',
      'cli',
      '--text',
      'We deploy on Fridays only after the freeze review.',
    ]);
    expect(again.entries[0]!.status).toBe('duplicate');
    expect(again.memory.scope_id).toBe('cli');
  });

  it('repeats a keyed write with its first result: --idempotency-key on remember, revise, forget, reactivate and purge', async () => {
    const remember = [
      'remember',
      '--scope',
      'cli-keyed',
      '--text',
      'Keyed once',
      '--idempotency-key',
      'cli-1',
    ];
    const first = await runJson<Remembered>(remember);
    expect(await runJson<Remembered>(remember)).toEqual(first);
    const human = await run(remember);
    expect(human.stdout).toContain(
      '(replayed: the first result of this --idempotency-key; nothing was written now)',
    );
    const entry = first.entries[0]!.entry_id;
    for (const command of [
      ['revise', '--scope', 'cli-keyed', '--entry', entry, '--text', 'Keyed once, revised'],
      ['forget', '--scope', 'cli-keyed', '--entry', entry],
      ['reactivate', '--scope', 'cli-keyed', '--entry', entry],
    ]) {
      const keyed = [...command, '--idempotency-key', `cli-${command[0]}`];
      const written = await runJson(keyed);
      expect(await runJson(keyed), command[0]).toEqual(written);
    }
    const changes = await runJson<{ memory: { revision: number } }>(['changes', '--scope', 'cli-keyed']);
    expect(changes.memory.revision).toBe(4);
    const reused = await run([
      'remember',
      '--scope',
      'cli-keyed',
      '--text',
      'Another',
      '--idempotency-key',
      'cli-1',
    ]);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toContain('idempotency_key_reused');
    const purge = [
      'purge',
      '--scope',
      'cli-keyed',
      '--entry',
      entry,
      '--yes',
      '--idempotency-key',
      'cli-purge',
    ];
    const purged = await runJson<{ status: string; memory: { revision: number } }>(purge);
    expect(purged).toMatchObject({ status: 'purged', memory: { revision: 5 } });
    expect(await runJson(purge)).toEqual(purged);
    expect((await run(purge)).stdout).toContain('(replayed: the first result of this --idempotency-key');
  });

  it('searches with text output and with the HTTP v1 JSON body', async () => {
    const human = await run(['search', '--scope', 'cli', '--query', 'when do we deploy', '--mode', 'fts']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('1 hit in scope "cli" at revision');
    expect(human.stdout).toContain('We deploy on Fridays only after the freeze review.');
    expect(human.stdout).not.toContain('coarse #');

    const body = await runJson<{ mode: string; hits: { text: string; matched_by: string[] }[] }>([
      'search',
      '--scope',
      'cli',
      '--query',
      'when do we deploy',
      '--limit',
      '3',
    ]);
    expect(body.mode).toBe('hybrid');
    expect(Object.keys(body).sort()).toEqual(['hits', 'memory', 'mode']);
    expect(body.hits[0]).toMatchObject({ text: 'We deploy on Fridays only after the freeze review.' });
    expect(Object.keys(body.hits[0]!).sort()).toEqual([
      'citation',
      'kind',
      'matched_by',
      'metadata',
      'occurred_at',
      'pinned',
      'revision',
      'scope_id',
      'score',
      'sources',
      'tags',
      'text',
      'written_at',
    ]);
  });

  it('explains a coarse search: channel ranks per hit and that no reranker ran', async () => {
    const human = await run([
      'search',
      '--scope',
      'cli',
      '--query',
      'deploy freeze',
      '--mode',
      'fts',
      '--explain',
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('coarse #1 · fts #1 (rrf 0.0164)');
    // The entry has no neighbours: both terms (as analysed: stemmed) are its own words.
    expect(human.stdout).toContain('own words "deploy" "freez" · neighbour context -');
    expect(human.stdout).toContain('lexical query terms: "deploy" "freez"');
    expect(human.stdout).toContain('rerank: none ran');

    const body = await runJson<{
      explain: { rerank: unknown; hits: { channel_ranks: unknown; lexical: unknown }[] };
    }>(['search', '--scope', 'cli', '--query', 'deploy freeze', '--mode', 'fts', '--explain']);
    expect(body.explain.rerank).toBeNull();
    expect(body.explain.hits[0]!.channel_ranks).toEqual({ fts: 1 });
    expect(body.explain.hits[0]!.lexical).toEqual({ own_terms: ['deploy', 'freez'], context_terms: [] });
  });

  it('explains a reranked search from the in-process trace: chosen hits and the policy', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-cli-rerank-'));
    // A reranker that picks the second coarse candidate first.
    const reranker = createScriptedReranker({ policyId: 'test.pick-second.v1', decide: () => [2, 1] });
    const reranked = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dir }, reranker });
    try {
      const options = { runtime: reranked };
      await run(
        ['remember', '--scope', 'r', '--text', 'alpha deploy notes', '--text', 'deploy checklist for beta'],
        options,
      );
      const human = await run(
        ['search', '--scope', 'r', '--query', 'deploy', '--mode', 'fts', '--explain'],
        options,
      );
      expect(human.code).toBe(0);
      const lines = human.stdout.split('\n');
      expect(lines.filter((line) => line.includes('chosen by the reranker'))).toHaveLength(2);
      expect(lines.find((line) => line.includes('coarse #2'))).toBeDefined();
      expect(human.stdout).toContain(
        'rerank: test.pick-second.v1, pool of 2, used fallback no, not degraded',
      );
      // The first hit printed is the reranker's choice, coarse #2.
      expect(lines.findIndex((line) => line.includes('coarse #2'))).toBeLessThan(
        lines.findIndex((line) => line.includes('coarse #1')),
      );
    } finally {
      await reranked.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists, gets, revises and forgets', async () => {
    const created = await runJson<Remembered>([
      'remember',
      '--scope',
      'cli-rw',
      '--text',
      'Lunch is at noon.',
    ]);
    const entryId = created.entries[0]!.entry_id;

    const listed = await run(['list', '--scope', 'cli-rw']);
    expect(listed.stdout).toContain(`1 active entry in scope "cli-rw" at revision 1`);
    expect(listed.stdout).toContain(`${entryId}  active    v1  note  Lunch is at noon.`);

    const got = await run(['get', '--scope', 'cli-rw', '--entry', entryId]);
    expect(got.stdout).toContain(`entry      ${entryId}`);
    expect(got.stdout.endsWith('\n\nLunch is at noon.')).toBe(true);

    const revised = await run([
      'revise',
      '--scope',
      'cli-rw',
      '--entry',
      entryId,
      '--text',
      'Lunch is at one.',
    ]);
    expect(revised.stdout).toMatch(
      new RegExp(`^Revised entry ${entryId} \\(version [0-9a-f-]{36}, revision 2\\)$`),
    );

    const forgotten = await runJson<{ status: string; memory: { revision: number } }>([
      'forget',
      '--scope',
      'cli-rw',
      '--entry',
      entryId,
    ]);
    expect(forgotten).toMatchObject({ status: 'created', memory: { revision: 3 } });
    const twice = await run(['forget', '--scope', 'cli-rw', '--entry', entryId]);
    expect(twice.stdout).toBe(`Entry ${entryId} was already forgotten; nothing written (revision 3)`);

    const active = await runJson<{ entries: unknown[] }>(['list', '--scope', 'cli-rw']);
    expect(active.entries).toEqual([]);
    const search = await runJson<{ hits: unknown[] }>(['search', '--scope', 'cli-rw', '--query', 'lunch']);
    expect(search.hits).toEqual([]);
    const old = await runJson<{ entry: { text: string } }>([
      'get',
      '--scope',
      'cli-rw',
      '--entry',
      entryId,
      '--revision',
      '1',
    ]);
    expect(old.entry.text).toBe('Lunch is at noon.');
  });

  it('prints stored text with terminal control characters escaped', async () => {
    const text = 'red \u001b[31malert\u001b[0m and \u202eevil';
    await run(['remember', '--scope', 'cli-escape', '--text', text]);
    const listed = await run(['list', '--scope', 'cli-escape']);
    expect(listed.stdout).not.toContain('\u001b');
    expect(listed.stdout).not.toContain('\u202e');
    expect(listed.stdout).toContain('red \\u{1b}[31malert\\u{1b}[0m and \\u{202e}evil');
    const body = await runJson<{ entries: { text: string }[] }>(['list', '--scope', 'cli-escape']);
    expect(body.entries[0]!.text).toBe(text);
  });

  it('re-embeds one scope or every scope', async () => {
    const one = await runJson<{ embedding_profile: string; scopes: unknown[] }>([
      'reembed',
      '--scope',
      'cli',
    ]);
    expect(one).toEqual({
      embedding_profile: 'powercontext.local-hash.v2@1024',
      scopes: [{ scope_id: 'cli', reembedded: 0 }],
    });
    const all = await run(['reembed']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^0 entries re-embedded for powercontext\.local-hash\.v2@1024 in \d+ scopes$/);
  });

  it('rejects bad flags with exit 2 and a message naming the flag and the rule', async () => {
    const cases: [string[], string][] = [
      [['search', '--scope', 'cli'], '--query is required'],
      [
        ['search', '--scope', 'cli', '--query', 'x', '--limit', 'ten'],
        '--limit must be an integer, got "ten"',
      ],
      [
        ['search', '--scope', 'cli', '--query', 'x', '--mode', 'semantic'],
        '--mode must be one of auto, fts, vector, hybrid, got "semantic"',
      ],
      [
        ['search', '--scope', 'cli', '--query', 'x', '--entry', 'y'],
        'unknown flag --entry for "memory search"',
      ],
      [['get', '--scope', 'cli', '--scope', 'other', '--entry', 'x'], '--scope may be given once'],
      [
        ['remember', '--scope', 'cli', '--text', 'x', '--metadata', '[1]'],
        '--metadata must be a JSON object',
      ],
      [['remember', '--scope', 'cli', '--text', 'x', '--locator', 'l'], '--locator needs --source'],
      [
        ['list', '--scope', 'cli', '--state', 'gone'],
        '--state must be one of active, inactive, all, got "gone"',
      ],
      [['forget', '--scope', 'cli', '--json=yes', '--entry', 'x'], '--json takes no value'],
      [
        ['forget', '--scope', 'cli', '--entry', 'x', '--idempotency-key', 'two words'],
        '--idempotency-key must be visible ASCII characters only (! to ~, no spaces)',
      ],
      [
        ['search', '--scope', 'cli', '--query', 'x', '--idempotency-key', 'k'],
        'unknown flag --idempotency-key for "memory search"',
      ],
      [['teleport'], 'unknown command "memory teleport"'],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], argv.join(' ')).toContain(message);
      expect(result.stderr).toContain('Usage: powercontext memory');
      expect(result.stdout).toBe('');
    }
  });

  it('maps rule violations found by the memory service back to the flag, exit 2', async () => {
    const cases: [string[], string][] = [
      [['list', '--scope', 'cli', '--revision', '1', '--cursor', 'x'.repeat(2000)], '--cursor: cursor'],
      [['get', '--scope', 'cli', '--entry', 'not-a-uuid'], '--entry: entry_id must be a UUID'],
      [
        ['remember', '--scope', 'cli', '--text', 'ok', '--text', '  '],
        '--text: text must contain a non-space character',
      ],
      [
        ['remember', '--scope', 'cli', '--text', 'ok', '--kind', 'Bad Kind'],
        '--kind: kind must be 1-64 lowercase',
      ],
      [['list', '--scope', ' cli'], '--scope: scope id must not start or end with white space'],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
    }
    const json = await run(['get', '--scope', 'cli', '--entry', 'not-a-uuid', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'invalid_request',
        message: 'Invalid request: entry_id: entry_id must be a UUID',
        retryable: false,
        details: { issues: [{ field: 'entry_id', rule: 'entry_id must be a UUID' }] },
      },
    });
  });

  it('reports operation failures with the error code, exit 1', async () => {
    const missing = await run(['get', '--scope', 'cli', '--entry', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^error not_found: No entry "00000000-0000-4000-8000-000000000000" in this scope$/,
    );

    const json = await run([
      'forget',
      '--scope',
      'cli',
      '--entry',
      '00000000-0000-4000-8000-000000000000',
      '--json',
    ]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'not_found', retryable: false } });
  });

  // Opens a fresh data directory and reopens it: generous time on a loaded machine.
  it('opens the runtime from the environment and flags, and reports configuration errors naming the flag', {
    timeout: 120_000,
  }, async () => {
    const bad = await run(['list', '--scope', 'x', '--database-url', 'mysql://db'], { env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'powercontext memory: configuration_error: --database-url (POWERCONTEXT_SERVER_DATABASE_URL): must be a postgres:// or postgresql:// URL',
    );
    const badEnv = await run(['list', '--scope', 'x'], {
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS: '0' },
    });
    expect(badEnv.stderr).toContain(
      'configuration_error: POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS',
    );

    const dir = mkdtempSync(join(tmpdir(), 'pc-cli-env-'));
    try {
      const written = await run(['remember', '--scope', 'env', '--text', 'from the environment'], {
        env: { POWERCONTEXT_SERVER_DATA_DIR: dir },
      });
      expect(written.code).toBe(0);
      // --data-dir wins over a database URL in the environment.
      const listed = await run(['list', '--scope', 'env', '--data-dir', dir, '--json'], {
        env: { POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      });
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).entries[0].text).toBe('from the environment');
      // The data directory of an open runtime is locked: the command says so and fails.
      const locked = await run(['list', '--scope', 'x'], { env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain(
        'store_incompatible: The data directory is already open in this process',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the usage for --help, and to stderr with exit 2 for no command', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: powercontext memory <command> [options]');
    for (const command of ['revise', 'reactivate', 'changes']) expect(help.stdout).toContain(`  ${command} `);
    // On 6a3d005 a bare `memory` printed the help and exited 0.
    const bare = await run([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage: powercontext memory <command> [options]');
  });

  it('gives every subcommand its own help', async () => {
    // On 6a3d005 `memory search --help` printed the help of every command.
    const search = await run(['search', '--help']);
    expect(search.code).toBe(0);
    expect(search.stdout.split('\n')[0]).toBe(
      'Usage: powercontext memory search --scope S [--scope S ...] --query Q [--limit N] [--mode auto|fts|vector|hybrid] [--filter JSON]',
    );
    expect(search.stdout.split('\n')[1]).toBe('    [--explain]');
    expect(search.stdout).not.toContain('memory remember');
    const changes = await run(['changes', '-h']);
    expect(changes.stdout.split('\n')[0]).toContain('Usage: powercontext memory changes --scope S');
    // import keeps its own parser (it takes a FILE) and has its own help too.
    const importHelp = await run(['import', '--help']);
    expect(importHelp.code).toBe(0);
    expect(importHelp.stdout.split('\n')[0]).toBe(
      'Usage: powercontext memory import --scope S FILE.jsonl [--batch-size N] [--idempotency-key K]',
    );
    const noFile = await run(['import', '--scope', 'cli']);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain(
      'memory import needs a FILE (JSON Lines)\n\nUsage: powercontext memory import',
    );
  });

  it('says "unknown flag" for a flag no command has, and checks ranges before opening the store', async () => {
    const env = { POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const cases: [string[], string][] = [
      [['search', '--scope', 'cli', '--query', 'x', '--bogus'], 'unknown flag --bogus for "memory search"'],
      [
        ['search', '--scope', 'cli', '--query', 'x', '--limit', '0'],
        '--limit must be an integer from 1 to 50, got 0',
      ],
      [['list', '--scope', 'cli', '--limit', '201'], '--limit must be an integer from 1 to 200, got 201'],
      [['changes', '--scope', 'cli', '--from-revision=-1'], '--from-revision must be an integer from 0'],
      [['get', '--scope', 'cli', 'stray'], 'unexpected argument "stray"'],
      [['get', '--scope'], '--scope needs a value'],
    ];
    for (const [argv, message] of cases) {
      // No runtime is given and the environment names a database nobody can reach: exit 2 proves the
      // flags were checked first (opening the store would fail with exit 1).
      const result = await run(argv, { env });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], argv.join(' ')).toContain(message);
    }
  });

  it('reactivates an entry and lists changes', async () => {
    const written = await run(['remember', '--scope', 'cli-changes', '--text', 'Standup at 9:30', '--json']);
    const entryId = JSON.parse(written.stdout).entries[0].entry_id as string;
    expect((await run(['forget', '--scope', 'cli-changes', '--entry', entryId])).code).toBe(0);
    const reactivated = await run(['reactivate', '--scope', 'cli-changes', '--entry', entryId]);
    expect(reactivated.code).toBe(0);
    expect(reactivated.stdout).toMatch(/^Reactivated entry /u);
    const changes = await run(['changes', '--scope', 'cli-changes', '--from-revision', '1']);
    expect(changes.code).toBe(0);
    expect(changes.stdout.split('\n')[0]).toBe('2 changes in scope "cli-changes" after revision 1 up to 3');
    expect(changes.stdout).toMatch(/r2 {2}forget/u);
    expect(changes.stdout).toMatch(/r3 {2}reactivate/u);
    const all = await run(['list', '--scope', 'cli-changes', '--state', 'all']);
    // On 6a3d005: "1 all entry".
    expect(all.stdout.split('\n')[0]).toMatch(/^1 entry \(active and inactive\) in scope/u);
  });

  it('purges an entry only with --yes; its text is gone from every command afterwards', async () => {
    const written = await run([
      'remember',
      '--scope',
      'cli-purge',
      '--text',
      'The door code is marmosetcipher',
      '--text',
      'Standup at 9:30',
      '--json',
    ]);
    const entryId = JSON.parse(written.stdout).entries[0].entry_id as string;
    const unconfirmed = await run(['purge', '--scope', 'cli-purge', '--entry', entryId]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes is required: a purge erases the entry for good');
    const purged = await run(['purge', '--scope', 'cli-purge', '--entry', entryId, '--yes']);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(
      new RegExp(
        `^Purged entry ${entryId}: 1 version erased at every revision \\(revision 2, tombstone `,
        'u',
      ),
    );
    const again = await runJson<{ status: string; tombstone: { purged_by: string } }>([
      'purge',
      '--scope',
      'cli-purge',
      '--entry',
      entryId,
      '--yes',
    ]);
    expect(again).toMatchObject({ status: 'unchanged', tombstone: { purged_by: 'local' } });
    const get = await run(['get', '--scope', 'cli-purge', '--entry', entryId, '--revision', '1']);
    expect(get.code).toBe(1);
    expect(get.stderr).toBe(`error entry_purged: Entry "${entryId}" was purged at revision 2`);
    const changes = await run(['changes', '--scope', 'cli-purge']);
    expect(changes.stdout).toMatch(
      new RegExp(`r1 {2}remember {4}${entryId} {2}v1 {2}\\(purged at revision 2\\)`, 'u'),
    );
    expect(changes.stdout).toMatch(/r2 {2}purge/u);
    const listed = await run(['list', '--scope', 'cli-purge', '--revision', '1']);
    expect(listed.stdout).toContain(`${entryId}  active    v1  (purged at revision 2)`);
    for (const output of [changes, listed]) expect(output.stdout).not.toContain('marmosetcipher');
  });
});

// A command opens an existing embedded store ahead of its runtime once its flags and configuration
// are checked (rfcs/0001, "Start-up"), never before.
describe('powercontext memory opening its own store', { timeout: 120_000 }, () => {
  const ownDir = mkdtempSync(join(tmpdir(), 'pc-cli-memory-own-'));
  const env = { POWERCONTEXT_SERVER_DATA_DIR: ownDir };
  beforeAll(async () => {
    const seeded = await createRuntime({ env });
    await seeded.memory.forScope('own').remember({ entries: [{ text: 'Backups run at midnight.' }] });
    await seeded.close();
  });
  afterAll(() => rmSync(ownDir, { recursive: true, force: true }));

  it('searches on the database it began opening once the flags were checked', async () => {
    const result = await run(['search', '--scope', 'own', '--query', 'when do backups run'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Backups run at midnight.');
    expect(existsSync(join(ownDir, 'powercontext.lock'))).toBe(false);
  });

  it.each([
    ['a bad flag', ['search', '--scope', 'own', '--query', 'x', '--limit', '0'], {}, 2],
    [
      'a configuration that fails',
      ['search', '--scope', 'own', '--query', 'x'],
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true' },
      1,
    ],
    [
      'an invalid setting',
      ['list', '--scope', 'own'],
      { POWERCONTEXT_SERVER_STORE_TEXT_SEARCH_CONFIG: 'Not A Name' },
      1,
    ],
  ])('opens nothing for %s', async (_name, argv, extra, exitCode) => {
    const before = directorySnapshot(ownDir);
    const result = await run(argv, { env: { ...env, ...extra } });
    expect(result.code).toBe(exitCode);
    // Nothing holds the directory after the refusal, and nothing in it changed.
    expect(existsSync(join(ownDir, 'powercontext.lock'))).toBe(false);
    expect(directorySnapshot(ownDir)).toEqual(before);
  });
});
