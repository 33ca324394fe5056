import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { directorySnapshot } from '../testing-support/directory-snapshot.js';
import { MEMORY_SUBCOMMANDS } from './memory-args.js';

// The built command line; `pnpm test` builds it first.
const BIN = fileURLToPath(new URL('../../dist/bin/powercontext.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-bin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function powercontext(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', POWERCONTEXT_SERVER_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('powercontext memory (the built bin)', () => {
  it('is built', () => {
    expect(existsSync(BIN)).toBe(true);
  });

  // Each run opens the embedded store in a new process: generous time on a loaded machine.
  it('remembers and searches across processes on one data directory', { timeout: 120_000 }, () => {
    const remembered = powercontext([
      'memory',
      'remember',
      '--scope',
      'bin',
      '--text',
      'Invoices go out on the 25th.',
    ]);
    expect(remembered.stderr).toBe('');
    expect(remembered.code).toBe(0);
    expect(remembered.stdout).toMatch(/^Stored 1 new entry of 1 in scope "bin" \(revision 1\)\n/);

    const searched = powercontext([
      'memory',
      'search',
      '--scope',
      'bin',
      '--query',
      'when do invoices go out',
      '--json',
    ]);
    expect(searched.code).toBe(0);
    const body = JSON.parse(searched.stdout) as { hits: { text: string }[]; memory: { revision: number } };
    expect(body.memory.revision).toBe(1);
    expect(body.hits.map((hit) => hit.text)).toEqual(['Invoices go out on the 25th.']);
  });

  it('searches several scopes with --scope repeated, each hit naming its scope', { timeout: 120_000 }, () => {
    for (const [scope, text] of [
      ['bin-user', 'The user drinks green tea at work.'],
      ['bin-project', 'The project tea fund pays for green tea.'],
    ]) {
      expect(powercontext(['memory', 'remember', '--scope', scope!, '--text', text!]).code).toBe(0);
    }
    const args = [
      'memory',
      'search',
      '--scope',
      'bin-user',
      '--scope',
      'bin-project',
      '--query',
      'green tea',
    ];
    const searched = powercontext([...args, '--mode', 'fts', '--json']);
    expect(searched.stderr).toBe('');
    expect(searched.code).toBe(0);
    const body = JSON.parse(searched.stdout) as {
      memory: null;
      scopes: { scope_id: string; memory: { revision: number } }[];
      hits: { scope_id: string; citation: { memory_ref: { scope_id: string } } }[];
    };
    expect(body.memory).toBeNull();
    expect(body.scopes.map((scope) => [scope.scope_id, scope.memory.revision])).toEqual([
      ['bin-user', 1],
      ['bin-project', 1],
    ]);
    expect(body.hits.map((hit) => hit.scope_id).sort()).toEqual(['bin-project', 'bin-user']);
    for (const hit of body.hits) expect(hit.citation.memory_ref.scope_id).toBe(hit.scope_id);
    const human = powercontext([...args, '--explain']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^2 hits in scopes "bin-user" at revision 1, "bin-project" at revision 1/u);
    expect(human.stdout).toContain('several scopes: 2 fused by RRF; no reranker ran');
    const repeated = powercontext([...args.slice(0, 6), '--scope', 'bin-user', '--query', 'tea']);
    expect(repeated.code).toBe(2);
    expect(repeated.stderr).toContain('scope_ids must not name a scope twice');
  });

  it('exits 2 naming the flag for bad arguments, before opening the store', () => {
    const before = existsSync(dataDir) ? directorySnapshot(dataDir) : {};
    const result = powercontext(['memory', 'search', '--scope', 'bin', '--query', 'x', '--limit', 'many']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe('--limit must be an integer, got "many"');
    expect(existsSync(dataDir) ? directorySnapshot(dataDir) : {}).toEqual(before);
  });

  it('exits 1 for a configuration that fails, leaving the data directory as it was', () => {
    // The first test made the store: the command would open it ahead of the runtime if it could.
    const before = directorySnapshot(dataDir);
    const result = powercontext(['memory', 'search', '--scope', 'bin', '--query', 'x'], {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL');
    expect(directorySnapshot(dataDir)).toEqual(before);
  });

  it('loads neither Hono nor the MCP SDK for a search (rfcs/0001, "Start-up")', { timeout: 120_000 }, () => {
    // A module hook that names every module the process (and its PGlite thread) loads, on stderr.
    const hooks = `data:text/javascript,${encodeURIComponent(
      'export async function load(url, context, next) { process.stderr.write("loaded " + url + "\\n"); return next(url, context); }',
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(
      `import { register } from 'node:module'; register(${JSON.stringify(hooks)});`,
    )}`;
    const result = spawnSync(
      process.execPath,
      ['--import', register, BIN, 'memory', 'search', '--scope', 'bin', '--query', 'invoices'],
      { env: { PATH: process.env.PATH ?? '', POWERCONTEXT_SERVER_DATA_DIR: dataDir }, encoding: 'utf8' },
    );
    expect(result.status).toBe(0);
    // The bin is bundled (scripts/bundle-bin.mjs): each chunk names the modules it holds in a comment
    // line before each one's code (`// packages/store-postgres/dist/bundle/index.js`).
    const modules = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('loaded file:'))
      .flatMap((line) => {
        const file = fileURLToPath(line.slice('loaded '.length));
        if (!file.startsWith(dirname(BIN))) return [file];
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter((text) => /^\/\/ (node_modules|packages)\//u.test(text));
      });
    // The store's modules are seen (its own bundle, with kysely inside: scripts/bundle-packages.mjs).
    expect(modules.some((name) => name.includes('packages/store-postgres/'))).toBe(true);
    expect(modules.filter((name) => /\/hono[@/]|@hono|@modelcontextprotocol/u.test(name))).toEqual([]);
  });

  it('names every memory command in the help of powercontext', () => {
    const result = powercontext(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`memory <command>    ${MEMORY_SUBCOMMANDS.join(', ')}\n`);
  });

  it('exits 2 naming the flag when the memory service rejects a value', { timeout: 120_000 }, () => {
    const result = powercontext(['memory', 'get', '--scope', 'bin', '--entry', 'not-a-uuid']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('--entry: entry_id must be a UUID');
  });
});
