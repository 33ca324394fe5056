import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `<tmp>/powercontext-<uid>`: where PGlite's start-up copies are kept (an empty cluster, a migrated
 * one), made private if new. Undefined when it is not this user's alone, so a copy another user could
 * have written is never trusted.
 */
export function privateTemplateFolder(): string | undefined {
  try {
    const uid = process.getuid?.();
    const folder = join(tmpdir(), `powercontext-${uid ?? 'user'}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stat = statSync(folder);
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0)) return undefined;
    return folder;
  } catch {
    return undefined;
  }
}

/** A folder that does not exist yet, or holds nothing: a data directory that was never opened. */
export function isEmptyFolder(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return !existsSync(path);
  }
}
