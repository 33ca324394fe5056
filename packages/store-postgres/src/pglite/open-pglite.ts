import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { StoreIncompatibleError } from '@powercontext/memory-core';
import { DataDirLock } from './data-dir-lock.js';
import { pgliteExtensions } from './pglite-extensions.js';
import { installedPGliteVersion } from './pglite-version.js';

// In a module of its own so that the PGlite worker reads it without loading memory-core (and zod).
export { installedPGliteVersion };

export interface OpenedPGlite {
  pglite: PGlite;
  /** Releases the lock file; call after the database is closed. */
  release(): void;
}

interface DataDirManifest {
  format: 1;
  pgliteVersion: string;
}

/**
 * Opens (creating if needed) a PGlite database with pgvector and unaccent on this thread. `dataDir` undefined
 * means in memory. On disk the layout is `<dataDir>/pglite` (PostgreSQL files),
 * `<dataDir>/powercontext.json` (the PGlite version that wrote them) and `<dataDir>/powercontext.lock`
 * (held while open). The store itself runs PGlite on a worker thread (`openPGliteThread`).
 */
export async function openPGlite(dataDir: string | undefined): Promise<OpenedPGlite> {
  // Loaded on first use, so a process on PostgreSQL (or one that fails earlier) never loads PGlite.
  const [{ PGlite }, extensions] = await Promise.all([import('@electric-sql/pglite'), pgliteExtensions()]);
  if (dataDir === undefined) {
    return { pglite: await PGlite.create({ extensions }), release: () => {} };
  }
  const claimed = claimDataDir(dataDir);
  try {
    const pglite = await PGlite.create({ dataDir: claimed.pgliteDir, extensions });
    return { pglite, release: claimed.release };
  } catch (error) {
    claimed.release();
    throw error;
  }
}

/** A data directory this process holds: its lock taken and its PGlite version checked (or recorded). */
export interface ClaimedDataDir {
  /** Where PGlite keeps its PostgreSQL files. */
  pgliteDir: string;
  /** Releases the lock file; call after the database is closed. */
  release(): void;
}

/** Takes the data directory's lock and checks that this build's PGlite wrote it (or records that it does). */
export function claimDataDir(dataDir: string): ClaimedDataDir {
  mkdirSync(dataDir, { recursive: true });
  const lock = DataDirLock.acquire(join(dataDir, 'powercontext.lock'));
  try {
    const version = installedPGliteVersion();
    const manifestPath = join(dataDir, 'powercontext.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as DataDirManifest;
      if (manifest.pgliteVersion !== version) {
        throw new StoreIncompatibleError(
          `The data directory ${dataDir} was written by PGlite ${manifest.pgliteVersion}, but this build runs PGlite ${version}; ` +
            'PGlite versions are not compatible on disk. Export with the old version or use a new data directory.',
        );
      }
    } else {
      writeFileSync(
        manifestPath,
        `${JSON.stringify({ format: 1, pgliteVersion: version } satisfies DataDirManifest)}\n`,
      );
    }
    return { pgliteDir: join(dataDir, 'pglite'), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw error;
  }
}
