import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneTemplates } from './private-templates.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const MINUTE = 60_000;
const family = (name: string) => /^pglite-[^/]+-schema-[0-9a-f]{16}$/u.test(name);

/** A private folder holding the named copies, each last used `minutesAgo` before `now`. */
function folderWith(now: number, copies: Record<string, number>): string {
  const folder = mkdtempSync(join(tmpdir(), 'pc-templates-'));
  folders.push(folder);
  for (const [name, minutesAgo] of Object.entries(copies)) {
    mkdirSync(join(folder, name));
    writeFileSync(join(folder, name, 'PG_VERSION'), '17\n');
    const used = new Date(now - minutesAgo * MINUTE);
    utimesSync(join(folder, name), used, used);
  }
  return folder;
}

const schema = (key: number) => `pglite-0.5.14-schema-${key.toString(16).padStart(16, '0')}`;

describe('pruneTemplates', () => {
  it('keeps the made copy and the most recently used others up to the count, and removes the rest', () => {
    const now = Date.now();
    const folder = folderWith(now, {
      [schema(1)]: 0,
      [schema(2)]: 60,
      [schema(3)]: 120,
      [schema(4)]: 180,
      [schema(5)]: 240,
      [schema(6)]: 300,
      'pglite-0.5.14-empty-data-dir': 1_000,
      [`${schema(7)}.0b8e.partial`]: 1_000,
    });
    pruneTemplates(folder, schema(1), { family, count: 4 }, now);
    expect(readdirSync(folder).sort()).toEqual(
      [
        schema(1),
        schema(2),
        schema(3),
        schema(4),
        'pglite-0.5.14-empty-data-dir',
        `${schema(7)}.0b8e.partial`,
      ].sort(),
    );
  });

  it('never removes a copy used in the last ten minutes, which another process may be copying', () => {
    const now = Date.now();
    const folder = folderWith(now, { [schema(1)]: 0, [schema(2)]: 2, [schema(3)]: 9, [schema(4)]: 11 });
    pruneTemplates(folder, schema(1), { family, count: 1 }, now);
    expect(readdirSync(folder).sort()).toEqual([schema(1), schema(2), schema(3)]);
  });
});
