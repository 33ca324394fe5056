import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `sharedBuffers: 'fit'`, for the long-lived processes (`server run`, `mcp`): a pool the size of what it
 * can hold. PGlite zeroes the whole pool at every start (about 3 ms a megabyte on a 2-core machine), and
 * a pool larger than the data directory's databases never fills from reads. So: 1.25 times the size of
 * the files under `base/`, rounded up to 8 MB, at least 32 MB (a new or in-memory store, and room to
 * grow) and at most 128 MB, the clusters' own setting. A store that grows by far under a running process
 * keeps its pool until the next start; PostgreSQL then reads the rest from its files.
 */
export function fitSharedBuffers(pgliteDir: string | undefined): string {
  const MB = 1024 * 1024;
  let bytes = 0;
  if (pgliteDir !== undefined) {
    const base = join(pgliteDir, 'base');
    for (const database of existsSync(base) ? readdirSync(base) : []) {
      const folder = join(base, database);
      if (!statSync(folder).isDirectory()) continue;
      for (const file of readdirSync(folder))
        bytes += statSync(join(folder, file), { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  const megabytes = Math.ceil((bytes * 1.25) / (8 * MB)) * 8;
  return `${Math.min(128, Math.max(32, megabytes))}MB`;
}
