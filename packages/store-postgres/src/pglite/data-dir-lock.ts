import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { StoreIncompatibleError } from '@powercontext/memory-core';

/** Lock files this process holds, so a second open in the same process is told so. */
const heldHere = new Set<string>();

/**
 * An exclusive lock file that keeps a second process off one PGlite data directory. The file holds
 * `<pid> <token>`. A lock whose process no longer runs is taken over; so is one naming our own pid
 * that this process does not hold (a restarted container often gets the same pid).
 *
 * Limit: taking over a stale lock is not atomic. Two processes that both start on a directory whose
 * owner died, at the same instant, could both take it over; the window is a few system calls.
 */
export class DataDirLock {
  readonly #path: string;
  readonly #token = randomUUID();
  #held = false;
  readonly #onExit = () => this.release();

  private constructor(path: string) {
    this.#path = resolve(path);
  }

  static acquire(path: string): DataDirLock {
    const lock = new DataDirLock(path);
    if (heldHere.has(lock.#path)) {
      throw new StoreIncompatibleError(
        `The data directory is already open in this process (lock file ${lock.#path})`,
      );
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (lock.#tryCreate()) return lock;
      const owner = readOwner(lock.#path);
      if (owner === 'being-written') continue;
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new StoreIncompatibleError(
          `The data directory is in use by process ${owner} (lock file ${lock.#path}). One process may open it at a time; use PostgreSQL for several.`,
        );
      }
      rmSync(lock.#path, { force: true }); // left behind by a process that no longer runs
    }
    throw new StoreIncompatibleError(`Could not take the lock file ${lock.#path}`);
  }

  #tryCreate(): boolean {
    try {
      const fd = openSync(this.#path, 'wx');
      try {
        writeSync(fd, `${process.pid} ${this.#token}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    this.#held = true;
    heldHere.add(this.#path);
    process.once('exit', this.#onExit);
    return true;
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    heldHere.delete(this.#path);
    process.off('exit', this.#onExit);
    // Remove the file only if it is still ours.
    if (readFileSafe(this.#path)?.includes(this.#token)) rmSync(this.#path, { force: true });
  }
}

/** The pid in a lock file; 'being-written' for an empty file (its creator is between open and write). */
function readOwner(path: string): number | 'being-written' | undefined {
  const text = readFileSafe(path);
  if (text === undefined) return undefined;
  if (text.trim() === '') {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    const again = readFileSafe(path);
    if (again === undefined || again.trim() === '') return undefined;
    return Number.parseInt(again, 10);
  }
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) ? pid : undefined;
}

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
