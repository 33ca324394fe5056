import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed PGlite version: minor versions are not compatible on disk. */
export function installedPGliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  let directory = dirname(entry);
  while (!existsSync(join(directory, 'package.json'))) directory = dirname(directory);
  return (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
}
