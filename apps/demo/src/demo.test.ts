import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The built demo (`pnpm test` builds it first), run as `pnpm demo` runs it, on a throw-away data dir.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'pc-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let firstRun = '';

function demo(args: string[] = []) {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', POWERCONTEXT_SERVER_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('pnpm demo', () => {
  it('opens by saying in words what it does and did, ends with what to try next, and names no policy', {
    timeout: 180_000,
  }, () => {
    const lines = demo().split('\n');
    expect(lines[0]).toBe(
      `PowerContext Memory demo: remembering a sample conversation (26 turns between two neighbours planning a garden) in scope "demo:alder-street-garden" of the embedded store in ${dataDir}, then searching it.`,
    );
    expect(lines[1]).toBe(
      'Stored 26 new entries. Here are its answers to 4 questions, each with the entry it cites:',
    );
    expect(lines).toContain('What to try next:');
    expect(lines.some((line) => line.includes(`memory search --scope demo:alder-street-garden`))).toBe(true);
    firstRun = lines.join('\n');
    expect(firstRun).toMatch(/^ {2}1\. score \d\.\d{4} /mu); // the hit line `pnpm bench:startup --fresh-clone` waits for
  });

  it('says a second run wrote nothing twice, and shows the policy under --verbose', {
    timeout: 180_000,
  }, () => {
    const lines = demo(['--verbose']).split('\n');
    expect(lines[1]).toMatch(
      /^All 26 turns were already stored by an earlier run: nothing was written twice\./u,
    );
    expect(lines[2]).toBe(`  store pglite (${dataDir})`);
    expect(lines.some((line) => /^ {2}retrieval policy \S+/u.test(line))).toBe(true);
  });

  it('prints one JSON object with --json: the policy id, the counts and every hit', {
    timeout: 180_000,
  }, () => {
    const body = JSON.parse(demo(['--json'])) as {
      retrieval_policy_id: string;
      entries: { created: number; already_present: number };
      memory: { revision: number };
      searches: { query: string; hits: { text: string; citation: { entry_id: string } }[] }[];
    };
    expect(body.retrieval_policy_id.length).toBeGreaterThan(0);
    expect(firstRun).not.toContain(body.retrieval_policy_id); // only under --verbose or in --json
    expect(body.entries).toMatchObject({ created: 0, already_present: 26 });
    expect(body.searches.map((search) => search.query)).toContain('slugs eating seedlings');
    expect(body.searches.every((search) => search.hits.length > 0)).toBe(true);
  });
});
