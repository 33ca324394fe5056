#!/usr/bin/env node
// Bundles the built JavaScript of the packages an application loads to open a runtime (rfcs/0001,
// "Start-up") into each package's dist/bundle/, which its `exports` name. scripts/compile.mjs runs it
// after `tsgo -b` (it reads dist/, not src/); the types stay tsgo's, in dist/.
//
// Why: Node resolves, reads and links every ES module on its own. `createRuntime()` loaded about 560 of
// them (kysely alone 263, the store 62, memory-core 58), and importing the store took 210 ms against
// about 100 ms for the same code in a few files. The `powercontext` command was already bundled
// (packages/server/scripts/bundle-bin.mjs); a library that opens the same data directory should start
// as fast (issue 30).
//
// What is inlined: a package's own modules and the libraries in its `inline` list: kysely, into the
// store. An application may hand the store a Kysely of its own copy (`PostgresMemoryStoreOptions.db`,
// `migrateToLatest`); kysely matches its query nodes and executors by shape, not by class, so the two
// copies work together (packages/store-postgres/src/published-bundle.integration.test.ts runs that
// case). Taking kysely out of the bundle measured 1.26x where inlined gave 1.20x in the same session
// (issue 30's bound is 1.2x). Everything imported by a bare name stays an
// import: the other @powercontext packages and zod must stay one instance shared with the application
// (its error classes, its schemas), PGlite finds its WebAssembly beside itself, pg has an optional
// native binding. Each package is one build over all of its entries, so the modules they share are
// one chunk, loaded once: the store's PGlite thread that `prestart` starts and `index` then takes is
// one object. Lazy `import()`s stay lazy (their own chunks). No source maps: the inlined libraries'
// sources are not in the tarball, and the unminified bundle keeps every name; tsgo's dist/*.js and
// their maps ship beside it.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The packages `createRuntime()` loads to open the embedded store and search; `entries` adds modules
 * that no export names (the store's worker thread). A package whose modules find files relative to
 * themselves (`createRequire(import.meta.url)('../package.json')`, as observability-otel does) cannot be
 * moved into dist/bundle/ without changing that lookup.
 */
const PACKAGES = {
  'context-assembly': {},
  'embedder-local': {},
  inference: {},
  'memory-core': {},
  'retrieval-rrf': {},
  runtime: {},
  'store-postgres': { inline: ['kysely'], entries: { 'pglite-worker': 'pglite/pglite-worker.js' } },
};

/** `./dist/testing/index.d.ts` → `testing/index` (the module's path in dist/, without extension). */
const builtModule = (types) => types.replace(/^\.\/dist\//u, '').replace(/\.d\.ts$/u, '');

/** When the bundle was written; a bundle older than any of tsgo's files or the manifest is written again. */
const STAMP = '.built';

/** Bundles each of PACKAGES whose bundle is missing or older than its inputs. */
export async function bundlePackages() {
  for (const [name, options] of Object.entries(PACKAGES)) {
    const packageDir = join(root, 'packages', name);
    if (stale(packageDir)) await bundle(packageDir, options);
  }
}

function stale(packageDir) {
  const stamp = join(packageDir, 'dist', 'bundle', STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const inputs = [join(packageDir, 'package.json'), fileURLToPath(import.meta.url)];
  for (const file of readdirSync(join(packageDir, 'dist'), { recursive: true })) {
    const path = String(file);
    if (path.endsWith('.js') && !path.startsWith('bundle')) inputs.push(join(packageDir, 'dist', path));
  }
  return inputs.some((input) => statSync(input).mtimeMs > built);
}

async function bundle(packageDir, { inline = [], entries = {} }) {
  const dist = join(packageDir, 'dist');
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const input = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const entry = subpath === '.' ? 'index' : subpath.slice(2);
    const expected = `./dist/bundle/${entry}.js`;
    if (target.default !== expected) {
      console.error(`bundle-packages: ${manifest.name} exports "${subpath}" must name ${expected}`);
      process.exit(1);
    }
    input[entry] = join(dist, `${builtModule(target.types)}.js`);
  }
  for (const [entry, file] of Object.entries(entries)) input[entry] = join(dist, file);

  const isExternal = (id) =>
    id.startsWith('node:') ||
    (!id.startsWith('.') &&
      !id.startsWith('/') &&
      !inline.some((lib) => id === lib || id.startsWith(`${lib}/`)));
  const outDir = join(dist, 'bundle');
  rmSync(outDir, { recursive: true, force: true });
  const build = await rolldown({
    input,
    platform: 'node',
    external: isExternal,
    logLevel: 'warn',
    onLog(level, log, handler) {
      // A module imported lazily by one entry and statically by another stays where the static import
      // puts it; the lazy entry still loads it only when it asks (the store's open-ahead.ts).
      if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
      handler(level, log);
    },
  });
  await build.write({
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  });
  await build.close();
  writeFileSync(join(outDir, STAMP), '');
}
