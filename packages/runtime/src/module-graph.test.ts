import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'pc-runtime-graph-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A module hook (run in Node's hooks thread) that writes the URL of every module loaded through the ES
 * module loader to stderr, one a line, as `loaded <url>`: what a process importing the built runtime
 * loads, and when.
 */
const HOOK = `import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  writeSync(2, 'loaded ' + url + '\\n');
  return next(url, context);
}`;

/**
 * Runs `body` in a fresh Node process after it imported `@powercontext/runtime` (the built package),
 * with the hook above, and returns the modules loaded by the import and those loaded after it.
 */
async function modulesLoaded(body: string) {
  // A script file, not --input-type: the PGlite thread inherits the process's flags, and a worker
  // refuses --input-type.
  const script = join(mkdtempSync(join(root, 'script-')), 'main.mjs');
  writeFileSync(
    script,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const runtime = await import(${JSON.stringify(resolveFromRuntime('@powercontext/runtime'))});
process.stderr.write('mark imported\\n');
${body}`,
  );
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [script], { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, text) =>
      error ? reject(new Error(`${error.message}\n${text}`)) : resolve(text),
    );
  });
  const lines = stderr.split('\n');
  const mark = lines.indexOf('mark imported');
  expect(mark).toBeGreaterThan(0);
  const urls = (part: string[]) =>
    part.filter((line) => line.startsWith('loaded ')).map((line) => line.slice('loaded '.length));
  return { atImport: urls(lines.slice(0, mark)), later: urls(lines.slice(mark + 1)) };
}

/** A file URL of `specifier` as this package resolves it (the built runtime, its dependencies). */
function resolveFromRuntime(specifier: string): string {
  return pathToFileURL(createRequire(join(packageDir, 'package.json')).resolve(specifier)).href;
}

/** The modules of a package (workspace `packages/<name>/` or an npm package's folder in the store). */
const of = (urls: string[], name: string) =>
  urls.filter((url) => url.includes(`/packages/${name}/`) || url.includes(`/node_modules/${name}/`));

// rfcs/0001, "A library starts as the command does": the embedded store's thread starts as soon as
// createRuntime is called, so what importing the runtime loads is on the way to it.
describe('the modules the runtime loads', { timeout: 120_000 }, () => {
  it('importing it loads the configuration and the errors, not the composition, the store or the models', async () => {
    const { atImport } = await modulesLoaded('');
    expect(of(atImport, 'memory-core').length).toBeGreaterThan(0); // the errors it re-exports
    for (const name of [
      'tsyringe',
      'reflect-metadata',
      'kysely',
      '@electric-sql/pglite',
      'decision-model',
      'rerank-listwise',
      'rerank-decision',
      'rerank-cross-encoder',
      'observability-otel',
      'inference-ai-sdk',
      'embedder-local',
      'retrieval-rrf',
    ])
      expect(of(atImport, name), name).toEqual([]);
    expect(atImport.filter((url) => /\/compose-runtime(-[\w-]+)?\.js$/u.test(url))).toEqual([]);
    // The store's entry (its bundle holds kysely: scripts/bundle-packages.mjs); `prestart` is loaded.
    expect(atImport.filter((url) => url.endsWith('/store-postgres/dist/bundle/index.js'))).toEqual([]);
  });

  it('the default set-up loads the composition and the store on createRuntime, and no model adapter', async () => {
    const { later } = await modulesLoaded(
      `const r = await runtime.createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: process.argv[1] } });
await r.close();`.replace('process.argv[1]', JSON.stringify(join(root, 'default'))),
    );
    for (const name of ['tsyringe', 'embedder-local', 'retrieval-rrf'])
      expect(of(later, name).length, name).toBeGreaterThan(0);
    expect(later.filter((url) => url.endsWith('/store-postgres/dist/bundle/index.js'))).toHaveLength(1);
    for (const name of [
      'decision-model',
      'rerank-listwise',
      'rerank-decision',
      'rerank-cross-encoder',
      'inference-ai-sdk',
    ])
      expect(of(later, name), name).toEqual([]);
  });

  it('a configured reranker loads the model adapters it needs', async () => {
    const { later } = await modulesLoaded(
      `const { InMemoryMemoryStore } = await import(${JSON.stringify(resolveFromRuntime('@powercontext/memory-core/testing'))});
const r = await runtime.createRuntime({
  store: new InMemoryMemoryStore(),
  env: {
    POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
    POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: 'openai-compatible:test-reranker',
    POWERCONTEXT_SERVER_INFERENCE_BASE_URL: 'http://127.0.0.1:9/v1',
  },
});
if (r.capabilities().rerank?.policyId === undefined) throw new Error('no reranker');
await r.close();`,
    );
    for (const name of ['rerank-listwise', 'inference-ai-sdk', 'decision-model'])
      expect(of(later, name).length, name).toBeGreaterThan(0);
  });
});
