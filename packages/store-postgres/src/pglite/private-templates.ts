import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
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

/**
 * Fills `target`, a data directory that was never opened, with a copy of the cluster folder `name()`
 * kept in the private folder (named only then, so an existing directory costs nothing more), making it first with `make(dir)` when it is missing: `make` builds a cluster
 * in a partial folder and closes it cleanly, and the folder is renamed into place, so a concurrent
 * opener never copies half of one. Nothing happens to a directory that holds anything. Any failure
 * leaves `target` empty, and the caller's open then builds the cluster itself.
 */
export async function seedFromTemplate(
  target: string,
  name: () => string,
  make: (dir: string) => Promise<void>,
): Promise<void> {
  if (!isEmptyFolder(target)) return;
  const folder = privateTemplateFolder();
  if (!folder) return;
  const template = join(folder, name());
  try {
    if (!existsSync(join(template, 'PG_VERSION'))) await makeTemplate(template, make);
    cpSync(template, target, { recursive: true });
  } catch {
    rmSync(target, { recursive: true, force: true });
  }
}

async function makeTemplate(template: string, make: (dir: string) => Promise<void>): Promise<void> {
  const partial = `${template}.${randomUUID()}.partial`;
  try {
    await make(partial);
    renameSync(partial, template);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // A concurrent opener may have put its copy in place first; theirs is as good.
    if (!existsSync(join(template, 'PG_VERSION'))) throw error;
  }
}
