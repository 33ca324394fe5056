import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMemoryCommand } from './memory-command.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-list-total-'));
let runtime: Runtime;
// More than two pages of the count's reads (200 each), so that the count follows the cursor.
const ENTRIES = 2_000;

beforeAll(async () => {
  runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
  const memory = runtime.memory.forScope('imp1');
  for (let start = 0; start < ENTRIES; start += 1_000) {
    const texts = Array.from({ length: 1_000 }, (_, i) => ({ text: `Imported note number ${start + i}.` }));
    await memory.remember({ entries: texts });
  }
  const listed = await memory.list({ limit: 2 });
  for (const entry of listed.entries) await memory.forget({ entryId: entry.entryId });
}, 240_000);

afterAll(async () => {
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation(() => {});
  const code = await runMemoryCommand(argv, { runtime });
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n') };
}

describe('powercontext memory list: how many of how many', () => {
  it('says "Showing 3 of 1,998" when a page of 3 is not the whole scope', async () => {
    const result = await run(['list', '--scope', 'imp1', '--limit', '3']);
    expect(result.code).toBe(0);
    const first = result.stdout.split('\n')[0];
    expect(first).toBe('Showing 3 of 1,998 active entries in scope "imp1" at revision 4');
    expect(result.stdout).toContain('next page: --cursor ');
  });

  it('counts the state asked for', async () => {
    const all = await run(['list', '--scope', 'imp1', '--limit', '3', '--state', 'all']);
    expect(all.stdout.split('\n')[0]).toBe(
      'Showing 3 of 2,000 entries (active and inactive) in scope "imp1" at revision 4',
    );
    const inactive = await run(['list', '--scope', 'imp1', '--limit', '1', '--state', 'inactive']);
    expect(inactive.stdout.split('\n')[0]).toBe(
      'Showing 1 of 2 inactive entries in scope "imp1" at revision 4',
    );
  });

  it('keeps the plain count when the page holds them all, and --json as the HTTP body', async () => {
    const whole = await run(['list', '--scope', 'imp1', '--state', 'inactive']);
    expect(whole.stdout.split('\n')[0]).toBe('2 inactive entries in scope "imp1" at revision 4');
    const json = await run(['list', '--scope', 'imp1', '--limit', '3', '--json']);
    expect(Object.keys(JSON.parse(json.stdout) as object).sort()).toEqual([
      'entries',
      'memory',
      'next_cursor',
      'total',
    ]);
  });
});
