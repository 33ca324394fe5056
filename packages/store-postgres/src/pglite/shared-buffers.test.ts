import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fitSharedBuffers } from './shared-buffers.js';

const MB = 1024 * 1024;
let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

/** A PGlite data directory whose databases hold files of these sizes (in bytes), by database. */
function dataDir(databases: Record<string, number[]>): string {
  folder = mkdtempSync(join(tmpdir(), 'pc-fit-'));
  for (const [oid, sizes] of Object.entries(databases)) {
    mkdirSync(join(folder, 'base', oid), { recursive: true });
    sizes.forEach((size, index) => {
      const file = join(folder!, 'base', oid, String(16384 + index));
      writeFileSync(file, '');
      truncateSync(file, size);
    });
  }
  writeFileSync(join(folder, 'PG_VERSION'), '18\n');
  return folder;
}

describe("sharedBuffers: 'fit'", () => {
  it('gives a new or in-memory store 32 MB', () => {
    expect(fitSharedBuffers(undefined)).toBe('32MB');
    expect(fitSharedBuffers(join(tmpdir(), 'pc-fit-no-such-dir'))).toBe('32MB');
    expect(fitSharedBuffers(dataDir({ 1: [7 * MB], 5: [4 * MB] }))).toBe('32MB');
  });

  it("sizes the pool to 1.25 times the databases' files, rounded up to 8 MB", () => {
    // 26 MB (the 1,000-entry benchmark's directory): 32.5 MB, so 40 MB.
    expect(fitSharedBuffers(dataDir({ 1: [7 * MB], 4: [7 * MB], 5: [10 * MB, 2 * MB] }))).toBe('40MB');
    expect(fitSharedBuffers(dataDir({ 5: [64 * MB] }))).toBe('80MB');
  });

  it("stops at 128 MB, the clusters' own setting", () => {
    expect(fitSharedBuffers(dataDir({ 5: [200 * MB] }))).toBe('128MB');
  });
});
