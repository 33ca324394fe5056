import { randomUUID } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
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
  keep?: KeptTemplates,
): Promise<void> {
  if (!isEmptyFolder(target)) return;
  const folder = privateTemplateFolder();
  if (!folder) return;
  const templateName = name();
  const template = join(folder, templateName);
  try {
    if (!existsSync(join(template, 'PG_VERSION'))) {
      await makeTemplate(template, make);
      if (keep) pruneTemplates(folder, templateName, keep);
    }
    cpSync(template, target, { recursive: true });
    // Its time says when it was last used: pruning removes the least recently used first.
    const now = new Date();
    utimesSync(template, now, now);
  } catch {
    rmSync(target, { recursive: true, force: true });
  }
}

/**
 * How many copies of one family to keep (the migrated schemas: one per schema, text search
 * configuration and PGlite version, 40 MB each). A new one is made whenever the store's code changes
 * (its key hashes the file that holds the migrations, in the published bundle the store's whole
 * chunk), so without a bound every release or rebuild would leave one more in the temporary folder.
 */
export interface KeptTemplates {
  /** Whether a folder name is one of the family. */
  family: (name: string) => boolean;
  /** The most recently used copies kept, the new one included. */
  count: number;
}

/** A copy used this recently is never removed: another process may be copying it now. */
const RECENTLY_USED_MS = 10 * 60_000;

/**
 * Removes the family's copies beyond the `count` most recently used, except `made` and those used in
 * the last ten minutes. A process copying one that is removed meanwhile fails its copy, and its open
 * then builds the cluster itself, as with no copy at all.
 */
export function pruneTemplates(folder: string, made: string, keep: KeptTemplates, now = Date.now()): void {
  const others = readdirSync(folder)
    .filter((name) => name !== made && keep.family(name))
    .map((name) => ({ name, used: statSync(join(folder, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { name, used } of others.slice(Math.max(keep.count - 1, 0))) {
    if (now - used >= RECENTLY_USED_MS) rmSync(join(folder, name), { recursive: true, force: true });
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
