import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMemoryCommand } from './memory-command.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-steering-'));
let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
});
afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  const code = await runMemoryCommand(argv, { runtime });
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('powercontext memory steers a search (RFC 0014)', () => {
  it('remembers with --tag, --pinned and --occurred-at, then searches and lists with --filter and --order', async () => {
    const remembered = await run([
      'remember',
      '--scope',
      'cli-steer',
      '--text',
      'Quarterly budget approved.',
      '--tag',
      'Finance',
      '--tag',
      'q3',
      '--pinned',
      '--occurred-at',
      '2026-07-01T12:00:00Z',
      '--json',
    ]);
    expect(remembered).toMatchObject({ code: 0, stderr: '' });
    await run(['remember', '--scope', 'cli-steer', '--text', 'Quarterly offsite planned.', '--json']);

    const search = await run([
      'search',
      '--scope',
      'cli-steer',
      '--query',
      'quarterly',
      '--filter',
      '{"tags_all":["finance","Q3"]}',
      '--json',
    ]);
    expect(search.code, search.stderr).toBe(0);
    const hits = (JSON.parse(search.stdout) as { hits: Record<string, unknown>[] }).hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      tags: ['finance', 'q3'],
      pinned: true,
      occurred_at: '2026-07-01T12:00:00.000Z',
    });

    const list = await run([
      'list',
      '--scope',
      'cli-steer',
      '--filter',
      '{"pinned":false}',
      '--order',
      'newest',
      '--json',
    ]);
    expect(list.code, list.stderr).toBe(0);
    const page = JSON.parse(list.stdout) as { total: number; entries: { text: string }[] };
    expect(page.total).toBe(1);
    expect(page.entries[0]!.text).toBe('Quarterly offsite planned.');
  });

  it('refuses a bad --filter before opening the store, naming the field', async () => {
    const bad = await run(['search', '--scope', 'cli-steer', '--query', 'x', '--filter', '{"kinds":[]}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--filter: filter.kinds: kinds must have at least 1 item');
  });
});
