#!/usr/bin/env node
// Bundles the `powercontext` command into dist/bin/ (rfcs/0001, "Start-up"): the built JavaScript of
// this package and of the workspace packages and pure-JavaScript libraries it runs, in a few files
// instead of about 600 ES modules, each of which Node resolves, reads and links on its own. Run after
// `tsgo -b` (it reads dist/, not src/).
//
// Left outside the bundle, and therefore dependencies of this package: what finds its own files at
// run time (PGlite and its extensions: WebAssembly and tar archives; pino: its transport threads;
// js-tiktoken's rank table, read as data; cli-progress, loaded with `require` on use) and `pg` (its
// optional native binding). The PGlite thread's module is an entry of its own, next to the chunk that
// starts it (pglite-thread.js looks for `./pglite-worker.js` beside itself).
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(packageDir, 'dist', 'bin');

/** Imported by name at run time, resolved from this package: each must be one of its dependencies. */
const EXTERNAL_PACKAGES = [
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  'pg',
  'pino',
  'js-tiktoken',
  'cli-progress',
];

const isExternal = (id) =>
  id.startsWith('node:') || EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * `createRequire(import.meta.url)('../package.json')` reads a file next to the module that says it;
 * once bundled the module lives elsewhere, so the JSON is read here, where the module still is.
 */
const inlineRelativeJson = {
  name: 'inline-relative-json',
  transform(code, id) {
    const pattern = /createRequire\(import\.meta\.url\)\((['"])(\.\.?\/[^'"]+\.json)\1\)/g;
    if (!pattern.test(code)) return null;
    return code.replace(
      pattern,
      (_, _quote, relative) => `(${readFileSync(resolve(dirname(id), relative), 'utf8').trim()})`,
    );
  },
};

const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const undeclared = EXTERNAL_PACKAGES.filter((name) => !manifest.dependencies?.[name]);
if (undeclared.length) {
  console.error(
    `bundle-bin: not dependencies of ${manifest.name}, so not found at run time: ${undeclared.join(', ')}`,
  );
  process.exit(1);
}

// The store's worker module, found through the runtime (this package depends on the store through it):
// the store's own bundle has it beside its entry (scripts/bundle-packages.mjs at the root).
const runtimeEntry = createRequire(join(packageDir, 'package.json')).resolve('@powercontext/runtime');
const storeEntry = createRequire(runtimeEntry).resolve('@powercontext/store-postgres');
const workerEntry = join(dirname(storeEntry), 'pglite-worker.js');

rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { powercontext: join(packageDir, 'dist', 'main.js'), 'pglite-worker': workerEntry },
  platform: 'node',
  external: isExternal,
  plugins: [inlineRelativeJson],
  logLevel: 'warn',
});
await bundle.write({
  dir: outDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunk-[hash].js',
});
await bundle.close();
