import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { StoreIncompatibleError } from '@powercontext/memory-core';

/** An exclusive lock file that keeps a second process off one PGlite data directory. */
export class DataDirLock {
  readonly #path: string;
  #held = false;
  readonly #onExit = () => this.release();

  private constructor(path: string) {
    this.#path = path;
  }

  static acquire(path: string): DataDirLock {
    const lock = new DataDirLock(path);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        lock.#held = true;
        process.once('exit', lock.#onExit);
        return lock;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
        if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
          throw new StoreIncompatibleError(
            `The data directory is in use by process ${owner} (lock file ${path}). One process may open it at a time; use PostgreSQL for several.`,
          );
        }
        if (owner === process.pid) {
          throw new StoreIncompatibleError(
            `The data directory is already open in this process (lock file ${path})`,
          );
        }
        rmSync(path, { force: true }); // left behind by a process that no longer runs
      }
    }
    throw new StoreIncompatibleError(`Could not take the lock file ${path}`);
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    process.off('exit', this.#onExit);
    rmSync(this.#path, { force: true });
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
