import { createHash, randomUUID } from 'node:crypto';
import { cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_MODULE_URL } from '../migrations/migrations.js';
import { installedPGliteVersion } from './open-pglite.js';
import { isEmptyFolder, privateTemplateFolder } from './private-templates.js';

/**
 * Fills a new, empty PGlite data directory with a copy of a migrated, empty cluster, so its first open
 * neither runs initdb nor the migrations, both costly inside WebAssembly. The copy is kept in this
 * user's private temporary folder, keyed by the PGlite version, the text of the migrations and the
 * text search configuration, so a schema or a configuration never meets a copy made for another. The
 * first open makes it: `migrate(dir)` opens a cluster in a partial folder, migrates it and closes it
 * cleanly, and the folder is renamed into place, so a concurrent opener never copies half of one. Any
 * failure leaves the directory empty, and the caller's open then builds the cluster itself.
 */
export async function seedMigratedCluster(
  pgliteDir: string,
  textSearchConfig: string,
  migrate: (dir: string) => Promise<void>,
): Promise<void> {
  if (!isEmptyFolder(pgliteDir)) return;
  const folder = privateTemplateFolder();
  if (!folder) return;
  const template = join(folder, `pglite-${installedPGliteVersion()}-schema-${schemaKey(textSearchConfig)}`);
  try {
    if (!existsSync(join(template, 'PG_VERSION'))) await makeTemplate(template, migrate);
    cpSync(template, pgliteDir, { recursive: true });
  } catch {
    rmSync(pgliteDir, { recursive: true, force: true });
  }
}

function schemaKey(textSearchConfig: string): string {
  return createHash('sha256')
    .update(readFileSync(fileURLToPath(MIGRATIONS_MODULE_URL)))
    .update(`\0${textSearchConfig}`)
    .digest('hex')
    .slice(0, 16);
}

async function makeTemplate(template: string, migrate: (dir: string) => Promise<void>): Promise<void> {
  const partial = `${template}.${randomUUID()}.partial`;
  try {
    await migrate(partial);
    renameSync(partial, template);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // A concurrent opener may have put its copy in place first; theirs is as good.
    if (!existsSync(join(template, 'PG_VERSION'))) throw error;
  }
}
