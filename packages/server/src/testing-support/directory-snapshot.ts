import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` with its size and modification time: what an open would change. */
export function directorySnapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, name));
    if (stat.isFile()) files[name] = `${stat.size}@${stat.mtimeMs}`;
  }
  return files;
}
