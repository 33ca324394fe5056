import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_MODULE_URL } from '../migrations/migrations.js';
import { installedPGliteVersion } from './open-pglite.js';
import { seedFromTemplate } from './private-templates.js';

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
  const name = () => `pglite-${installedPGliteVersion()}-schema-${schemaKey(textSearchConfig)}`;
  await seedFromTemplate(pgliteDir, name, migrate, SCHEMA_TEMPLATES);
}

/** The migrated clusters kept: enough for a few configurations or versions in use side by side. */
const SCHEMA_TEMPLATES = {
  family: (name: string) => /^pglite-[^/]+-schema-[0-9a-f]{16}$/u.test(name),
  count: 4,
};

function schemaKey(textSearchConfig: string): string {
  return createHash('sha256')
    .update(readFileSync(fileURLToPath(MIGRATIONS_MODULE_URL)))
    .update(`\0${textSearchConfig}`)
    .digest('hex')
    .slice(0, 16);
}
