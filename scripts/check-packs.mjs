#!/usr/bin/env node
// Checks that every publishable package in packages/* works as a consumer would get it from the registry:
//   1. `pnpm pack` it (workspace:^ ranges become real versions),
//   2. lint the tarball with publint and with "are the types wrong" (attw, ESM-only profile),
//   3. `npm install` all tarballs together in a scratch project outside the workspace,
//   4. import every entry point of each package's `exports` there and expect named exports,
//   5. type-check a file importing every entry point with `tsc` (moduleResolution NodeNext),
//   6. check that every source map in the installed package points at a file the tarball ships.
// The packages must already be built (`pnpm build`). Usage: node scripts/check-packs.mjs [--keep]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packPackage, privatePackageNames, publicPackages, readJson, root } from './lib/public-packages.mjs';

const rootDevDeps = readJson(path.join(root, 'package.json')).devDependencies ?? {};
const work = fs.mkdtempSync(path.join(tmpdir(), 'powercontext-check-packs-'));
const STEPS = ['pack', 'publint', 'attw', 'import', 'types', 'maps'];

function run(cmd, args, cwd) {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
  return { ok: result.status === 0, stdout: result.stdout ?? '', output };
}

const section = (title) => console.log(`\n=== ${title}`);

// --- discover publishable packages -------------------------------------------------------------
for (const name of privatePackageNames()) console.log(`skip ${name} (private)`);
const packages = publicPackages().map((pkg) => ({ ...pkg, status: {}, problems: [] }));
if (packages.length === 0) {
  console.error('check-packs: no publishable package found under packages/');
  process.exit(1);
}
// A public package may depend only on other public packages (a private one is never on the registry).
const privateNames = new Set(privatePackageNames());
for (const pkg of packages) {
  const bad = Object.keys(pkg.manifest.dependencies ?? {}).filter((name) => privateNames.has(name));
  if (bad.length) pkg.problems.push(`[pack] depends on private packages: ${bad.join(', ')}`);
}

function record(pkg, step, ok, detail) {
  pkg.status[step] = ok ? 'ok' : 'FAIL';
  if (!ok && detail) pkg.problems.push(`[${step}] ${detail.trim()}`);
}

// --- 1 + 2: pack and publint ---------------------------------------------------------------------
section('pack + publint');
const tarballDir = path.join(work, 'tarballs');
fs.mkdirSync(tarballDir);
for (const pkg of packages) {
  try {
    pkg.tarball = packPackage(pkg, tarballDir);
  } catch (error) {
    record(pkg, 'pack', false, error.message);
    continue;
  }
  // The server serves its memory inspector from the built files in its tarball (rfcs/0012).
  if (pkg.name === '@powercontext/server') {
    const listing = run('tar', ['-tzf', pkg.tarball], root).stdout.split('\n');
    const hasPage = listing.includes('package/dist/ui/index.html');
    const hasScript = listing.some((entry) => /^package\/dist\/ui\/assets\/[^/]+\.js$/.test(entry));
    if (!hasPage || !hasScript) {
      pkg.problems.push(
        '[pack] dist/ui (the inspector bundle) is missing: run `pnpm build`, which builds it',
      );
    }
  }
  record(pkg, 'pack', !pkg.problems.length, pkg.problems.join('\n'));

  const data = fs.readFileSync(pkg.tarball);
  const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  const { messages, pkg: packedManifest } = await publint({ pack: { tarball }, level: 'suggestion' });
  const describe = (m) => `${m.type}: ${formatMessage(m, packedManifest, { color: false })}`;
  const bad = messages.filter((m) => m.type !== 'suggestion'); // errors and warnings fail the check
  record(pkg, 'publint', bad.length === 0, bad.map(describe).join('\n'));
  console.log(`${pkg.name}: ${path.basename(pkg.tarball)}, publint ${bad.length ? 'FAILED' : 'ok'}`);
  for (const message of messages) console.log(`  ${describe(message)}`);

  // attw resolves each entry point the way TypeScript does under node16/nodenext/bundler (ESM only: these
  // packages ship no CommonJS). A package with no code entry point (the server: a bin) has nothing to check.
  if (pkg.entries.length === 0) {
    record(pkg, 'attw', true);
    continue;
  }
  const attw = run(
    path.join(root, 'node_modules', '.bin', 'attw'),
    [pkg.tarball, '--profile', 'esm-only', '--no-color', '--no-emoji'],
    root,
  );
  record(pkg, 'attw', attw.ok, attw.output);
  console.log(`  attw (esm-only): ${attw.ok ? 'no problems' : 'FAILED'}`);
}

// --- 3: install the tarballs in a scratch consumer project ---------------------------------------
section('npm install in a scratch project');
const consumer = path.join(work, 'consumer');
fs.mkdirSync(consumer);
const packed = packages.filter((pkg) => pkg.tarball);
fs.writeFileSync(
  path.join(consumer, 'package.json'),
  `${JSON.stringify({ name: 'powercontext-pack-consumer', private: true, type: 'module' }, null, 2)}\n`,
);
const tools = ['typescript', '@types/node', 'vitest'].map(
  (name) => `${name}@${rootDevDeps[name] ?? 'latest'}`,
);
const install = run(
  'npm',
  ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packed.map((pkg) => pkg.tarball), ...tools],
  consumer,
);
console.log(install.ok ? `installed ${packed.length} tarballs + ${tools.join(' ')}` : install.output);
if (!install.ok) for (const pkg of packed) record(pkg, 'import', false, 'npm install of the tarballs failed');
const installed = install.ok ? packed : [];

// --- 4: import every entry point from a generated ESM script -------------------------------------
section('runtime imports (node, ESM)');
const specs = installed.flatMap((pkg) => pkg.entries);
fs.writeFileSync(
  path.join(consumer, 'check-imports.mjs'),
  `for (const spec of ${JSON.stringify(specs)}) {
  try {
    const names = Object.keys(await import(spec)).filter((name) => name !== 'default');
    console.log(JSON.stringify({ spec, ok: names.length > 0, names, detail: names.length ? names.slice(0, 5).join(', ') : 'no named exports' }));
  } catch (error) {
    console.log(JSON.stringify({ spec, ok: false, detail: String(error?.stack ?? error) }));
  }
}
`,
);
const imports = installed.length ? run('node', ['check-imports.mjs'], consumer) : { stdout: '', output: '' };
const importResults = new Map();
for (const line of imports.stdout.split('\n').filter((l) => l.startsWith('{'))) {
  const { spec, ok, detail, names = [] } = JSON.parse(line);
  importResults.set(spec, { ok, detail, names });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${spec}: ${ok ? detail : detail.split('\n')[0]}`);
}
// The conformance suites contributors run against their adapters (issue 18): each /testing entry must
// be exported and expose its suite, so a packed package cannot silently drop one.
const CONFORMANCE_EXPORTS = {
  '@powercontext/memory-core/testing': [
    'describeMemoryStoreContract',
    'describeRerankerConformance',
    'describeEmbedderConformance',
    'describeSearchObserverConformance',
  ],
  '@powercontext/inference/testing': [
    'describeStructuredGeneratorConformance',
    'describeRelevanceScorerConformance',
    'createScriptedGenerator',
    'createScriptedRelevanceScorer',
  ],
  '@powercontext/decision-model/testing': ['describeDecisionModelConformance', 'createScriptedDecisionModel'],
};
for (const [spec, required] of Object.entries(CONFORMANCE_EXPORTS)) {
  const result = importResults.get(spec);
  if (!result?.ok) continue; // reported below as a failed import, or the package was not packed
  const missing = required.filter((name) => !result.names.includes(name));
  if (missing.length)
    importResults.set(spec, { ...result, ok: false, detail: `missing exports: ${missing.join(', ')}` });
  console.log(`${missing.length ? 'FAIL' : 'ok  '} ${spec} conformance exports: ${required.join(', ')}`);
}
for (const pkg of installed) {
  const expected = Object.keys(CONFORMANCE_EXPORTS).filter((spec) => spec.startsWith(`${pkg.name}/`));
  for (const spec of expected.filter((spec) => !pkg.entries.includes(spec))) {
    pkg.entries.push(spec); // not in `exports` at all: counted as a failed import
    importResults.set(spec, { ok: false, detail: 'not exported by package.json `exports`', names: [] });
  }
  const failed = pkg.entries.filter((spec) => !importResults.get(spec)?.ok);
  const details = failed.map((spec) => `${spec}: ${importResults.get(spec)?.detail ?? imports.output}`);
  record(pkg, 'import', failed.length === 0, details.join('\n'));
}

// --- 5: type-check imports of every entry point with NodeNext resolution -------------------------
section('types (tsc --noEmit, moduleResolution NodeNext)');
const tsLines = specs.map((spec, i) => `import * as entry${i} from '${spec}';`);
tsLines.push(`export const entries = [${specs.map((_, i) => `entry${i}`).join(', ')}];`);
fs.writeFileSync(path.join(consumer, 'check-types.ts'), `${tsLines.join('\n')}\n`);
const compilerOptions = {
  target: 'ES2023',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  types: ['node'],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
};
const tsconfig = JSON.stringify({ compilerOptions, files: ['check-types.ts'] }, null, 2);
fs.writeFileSync(path.join(consumer, 'tsconfig.json'), `${tsconfig}\n`);
const tsc = installed.length ? run('node_modules/.bin/tsc', ['-p', '.'], consumer) : null;
if (tsc?.ok) console.log('tsc: no errors');
// Attribute each tsc error to a package: by the line importing it, or by a file inside its installed folder.
const tsErrors = (tsc?.output ?? '').split('\n').filter((line) => line.includes('error TS'));
const ownerOf = (line) =>
  installed.find(
    (pkg) =>
      line.includes(`node_modules/${pkg.name}/`) ||
      pkg.entries.some((spec) => line.startsWith(`check-types.ts(${specs.indexOf(spec) + 1},`)),
  );
for (const pkg of installed) {
  const mine = tsErrors.filter((line) => ownerOf(line) === pkg);
  console.log(`${mine.length ? 'FAIL' : 'ok  '} ${pkg.name}${mine.length ? `\n  ${mine.join('\n  ')}` : ''}`);
  record(pkg, 'types', mine.length === 0, mine.join('\n'));
}
// skipLibCheck is off so our own .d.ts files are checked; errors inside third-party declarations (they
// expect DOM or Emscripten globals) are a consumer's environment question, so they are counted, not failed.
const thirdParty = tsErrors.filter((line) => !ownerOf(line));
if (thirdParty.length) console.log(`(${thirdParty.length} errors in third-party declarations ignored)`);
const tscCrashed = tsc && !tsc.ok && tsErrors.length === 0;

// --- 6: every source map (declaration maps and JavaScript maps) points at shipped files -----------
section('source maps resolve inside the installed package');
for (const pkg of installed) {
  const installedDir = path.join(consumer, 'node_modules', ...pkg.name.split('/'));
  const missing = [];
  let maps = 0;
  for (const file of fs.readdirSync(installedDir, { recursive: true })) {
    if (!String(file).endsWith('.map')) continue;
    maps += 1;
    const mapPath = path.join(installedDir, String(file));
    const { sources = [], sourceRoot = '' } = readJson(mapPath);
    for (const source of sources) {
      const target = path.resolve(path.dirname(mapPath), sourceRoot, source);
      if (!fs.existsSync(target)) missing.push(`${file} -> ${source}`);
    }
  }
  console.log(
    `${missing.length ? 'FAIL' : 'ok  '} ${pkg.name}: ${maps} maps${missing.length ? `, ${missing.length} missing sources` : ''}`,
  );
  record(pkg, 'maps', missing.length === 0, missing.slice(0, 5).join('\n'));
}

// --- summary -------------------------------------------------------------------------------------
section('summary');
const width = Math.max(...packages.map((pkg) => pkg.name.length));
console.log(`${'package'.padEnd(width)}  ${STEPS.map((s) => s.padEnd(7)).join(' ')}`);
for (const pkg of packages) {
  console.log(`${pkg.name.padEnd(width)}  ${STEPS.map((s) => (pkg.status[s] ?? '-').padEnd(7)).join(' ')}`);
}
const failures = packages.filter((pkg) => STEPS.some((step) => pkg.status[step] !== 'ok'));
for (const pkg of failures) {
  console.log(`\n${pkg.name} failed:`);
  for (const problem of pkg.problems) console.log(`  ${problem.replaceAll('\n', '\n    ')}`);
}
if (tscCrashed) console.log(`\ntsc failed without reporting errors:\n${tsc.output}`);
const failed = failures.length > 0 || tscCrashed;
if (failed || process.argv.includes('--keep')) {
  console.log(`\nscratch files kept in ${work}`);
} else {
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(
  `\ncheck-packs: ${failed ? 'FAILED' : 'all good'} (${failures.length} of ${packages.length} packages failing)`,
);
process.exit(failed ? 1 : 0);
