import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClaimedDataDir } from './open-pglite.js';
import { isSharedBuffersSize, type PendingOpen, PGliteThread } from './pglite-thread.js';

/** An open begun by openPGliteAhead that no store has taken yet. */
interface OpenedAhead {
  /** The data directory, resolved. */
  dataDir: string;
  sharedBuffers: string | undefined;
  claimed: ClaimedDataDir;
  pending: PendingOpen;
}

let ahead: OpenedAhead | undefined;

export interface OpenAheadOptions {
  /** PostgreSQL's shared_buffers for this run, as `createPGliteMemoryStore`'s `sharedBuffers`. */
  sharedBuffers?: string;
}

/**
 * Begins opening an existing PGlite data directory now, on the PGlite thread (the prestarted one when
 * there is one), so that PostgreSQL starts while the caller loads the rest of its modules; the next
 * `createPGliteMemoryStore` of the same directory with the same `sharedBuffers` takes the open
 * database instead of opening it again. The directory's lock is taken here, and its PGlite version
 * checked, exactly as the store's open does.
 *
 * Call it only once everything that could still refuse the run has been checked: from here on, the
 * data directory is in use. It does nothing, and returns false, when the directory is not an existing
 * store of this PGlite version (a new directory is made by the store's own open), when its lock is held
 * or `sharedBuffers` is not a size: the store's open then meets the same condition and reports it as it
 * always did. Nothing is written but the lock file. An open nobody takes never keeps the process alive
 * (its lock is released at exit); `closeOpenedAhead` closes it cleanly.
 */
export async function openPGliteAhead(dataDir: string, options: OpenAheadOptions = {}): Promise<boolean> {
  const { sharedBuffers } = options;
  if (ahead || (sharedBuffers !== undefined && !isSharedBuffersSize(sharedBuffers))) return false;
  // An existing store only: its cluster and the manifest that names its PGlite version, so claiming it
  // writes nothing but the lock file.
  if (!existsSync(join(dataDir, 'pglite', 'PG_VERSION')) || !existsSync(join(dataDir, 'powercontext.json')))
    return false;
  // Loaded here: the lock and the version check use memory-core's errors.
  const { claimDataDir } = await import('./open-pglite.js');
  if (ahead) return false;
  let claimed: ClaimedDataDir;
  try {
    claimed = claimDataDir(dataDir);
  } catch {
    return false; // the store's open reports it
  }
  const pending = PGliteThread.begin(claimed.pgliteDir, sharedBuffers === undefined ? {} : { sharedBuffers });
  ahead = { dataDir: resolve(dataDir), sharedBuffers, claimed, pending };
  return true;
}

/**
 * Whether an open begun ahead waits for this data directory and these settings, so that the next
 * `createPGliteMemoryStore` of it takes that open (and its thread): a caller then needs no thread of
 * its own started ahead (`prestartPGliteThread`).
 */
export function openedAheadFor(dataDir: string | undefined, sharedBuffers: string | undefined): boolean {
  return (
    ahead !== undefined &&
    dataDir !== undefined &&
    resolve(dataDir) === ahead.dataDir &&
    sharedBuffers === ahead.sharedBuffers
  );
}

/**
 * The open begun ahead for this data directory and these settings, now the caller's (its lock and the
 * database, once `pending.opened` settles); undefined when there is none. An open begun ahead for this
 * directory with other settings is closed first, and its lock released; one of another directory is
 * left to its own caller (a `createRuntime` of another directory may be about to take it).
 */
export async function takeOpenedAhead(
  dataDir: string | undefined,
  sharedBuffers: string | undefined,
): Promise<{ claimed: ClaimedDataDir; pending: PendingOpen } | undefined> {
  const taken = ahead;
  if (!taken || dataDir === undefined || resolve(dataDir) !== taken.dataDir) return undefined;
  ahead = undefined;
  taken.pending.ref();
  if (sharedBuffers === taken.sharedBuffers) return taken;
  await closeTaken(taken);
  return undefined;
}

/**
 * Closes an open begun ahead that no store took (cleanly: PostgreSQL shuts down, the lock is released);
 * with `dataDir`, only an open of that directory. For a caller that stops before it opens its store,
 * e.g. a command whose port cannot be bound, or a `createRuntime` that failed after it began the open.
 */
export async function closeOpenedAhead(dataDir?: string): Promise<void> {
  const taken = ahead;
  if (!taken || (dataDir !== undefined && resolve(dataDir) !== taken.dataDir)) return;
  ahead = undefined;
  taken.pending.ref();
  await closeTaken(taken);
}

async function closeTaken(taken: OpenedAhead): Promise<void> {
  try {
    const pglite = await taken.pending.opened;
    await pglite.close();
  } catch {
    // It did not open (the thread has ended), or closing failed: nothing is left to close.
  } finally {
    taken.claimed.release();
  }
}
