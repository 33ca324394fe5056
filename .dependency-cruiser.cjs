// Architecture rules for the PowerContext Memory workspace, checked by `pnpm lint:deps`.
//
// Every rule below but `unregistered-package` (a warning) is an error: `depcruise` exits non-zero
// when one is broken. When a package is added or its dependencies change on purpose, update the
// LAYERS table (and, for infrastructure libraries, the *_OWNERS lists) in the same change, so the
// architecture stays written down here.
//
// How workspace imports are resolved: `@powercontext/*` packages are symlinked into node_modules
// and their `exports` point at dist/, which does not exist before `tsc -b` (CI runs this check
// before building). So this file generates a small tsconfig whose `paths` map every public entry
// point a package declares in its package.json `exports` (e.g. `@powercontext/memory-core/testing`)
// onto the matching source file. An import through one of those names is classified by
// dependency-cruiser as `aliased-tsconfig-paths`; anything else that lands inside another package
// (a relative path, a deep `@powercontext/x/src/...` specifier) is not, and is reported.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = __dirname;

// Which workspace packages each package may import (its own files are always allowed).
// Mirrors the package plan; `runtime` is the composition root and may import every package.
const LAYERS = {
  'memory-core': [],
  'retrieval-rrf': ['memory-core'],
  inference: [],
  'embedder-local': ['memory-core'],
  'inference-ai-sdk': ['memory-core', 'inference'],
  'store-postgres': ['memory-core'],
  'rerank-listwise': ['memory-core', 'inference'],
  'decision-model': ['inference'],
  'rerank-decision': ['memory-core', 'decision-model'],
  'context-assembly': ['memory-core'],
  'rerank-cross-encoder': ['memory-core', 'inference'],
  'observability-otel': ['memory-core'],
  'cli-support': [], // private helpers of the project's own apps
  client: [], // the HTTP v1 client: talks to the server over HTTP only
  'search-peers': ['memory-core', 'embedder-local'], // private: the peer libraries the apps measure against
  runtime: null, // null = any workspace package
  // The published reference server (HTTP, MCP, CLI): composes through runtime, never an adapter directly.
  server: ['runtime', 'cli-support', 'context-assembly', 'memory-core', 'inference', 'retrieval-rrf'],
};

// Infrastructure libraries and the only packages allowed to import them (apps/* may import them too).
const DATABASE_LIBS = ['kysely', 'pg', 'pgvector', '@electric-sql/[^/]+'];
const DATABASE_OWNERS = ['store-postgres', 'runtime'];
const AI_LIBS = ['ai', '@ai-sdk/[^/]+'];
const AI_OWNERS = ['inference-ai-sdk', 'runtime'];
const OTEL_LIBS = ['@opentelemetry/[^/]+'];
const OTEL_OWNERS = ['observability-otel', 'runtime'];
const DI_LIBS = ['tsyringe', 'reflect-metadata'];
const DI_OWNERS = ['runtime'];

// Test-only files: never published (package.json `files` drops *.test.*), may import the test runner,
// and may also use workspace packages the package lists as devDependencies (the layer-* rules skip them).
const TEST_FILES = [
  '\\.(test|spec)\\.[^/]*$', // x.test.ts, x.integration.test.ts, x.test.helper.ts
  '\\.bench\\.[^/]*$', // x.bench.ts (`vitest bench`)
  '^(packages|apps)/[^/]+/src/(test|tests|__tests__|testing-support)/',
  '(^|/)vitest\\.config\\.[cm]?[jt]s$',
];
// Exported test kits (e.g. packages/memory-core/src/testing/ = `@powercontext/memory-core/testing`):
// published code that may import vitest, but otherwise follows its package's rules.
const TEST_KITS = '^(packages|apps)/[^/]+/src/testing/';

/** Regex for an npm package, resolved (anywhere under node_modules, incl. @types) or unresolved. */
function npm(...names) {
  const alt = names.join('|');
  return `(^|/)node_modules/(@types/)?(${alt})/|^(${alt})(/|$)`;
}

/** Regex for files inside the given packages. */
function inPackages(names) {
  return `^packages/(${names.join('|')})/`;
}

/** Source path of a package export target, e.g. `./dist/testing/index.js` -> `src/testing/index.ts`. */
function sourceOf(target) {
  return target.replace(/^\.\/dist\//, 'src/').replace(/(\.d)?\.[cm]?(ts|js)$/, '.ts');
}

function pickTarget(entry) {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object') {
    for (const condition of ['types', 'import', 'default']) {
      const target = pickTarget(entry[condition]);
      if (target) return target;
    }
  }
  return undefined;
}

/** Writes a tsconfig mapping each package's public entry points to its sources; returns its path. */
function writeWorkspacePathsTsConfig() {
  const paths = {};
  const packagesDir = path.join(ROOT, 'packages');
  for (const dir of fs.existsSync(packagesDir) ? fs.readdirSync(packagesDir) : []) {
    const manifestPath = path.join(packagesDir, dir, 'package.json');
    if (!fs.existsSync(manifestPath)) continue;
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const exportsMap =
      typeof manifest.exports === 'object' && manifest.exports !== null && !Array.isArray(manifest.exports)
        ? manifest.exports
        : { '.': manifest.exports ?? './dist/index.js' };
    const entries = Object.keys(exportsMap).some((key) => key.startsWith('.'))
      ? exportsMap
      : { '.': exportsMap };
    for (const [subpath, entry] of Object.entries(entries)) {
      const target = pickTarget(entry);
      if (!target || subpath.endsWith('.json') || !/\.[cm]?(ts|js)$/.test(target)) continue;
      const specifier = manifest.name + subpath.slice(1);
      paths[specifier] = [path.join(packagesDir, dir, sourceOf(target))];
    }
  }
  const outDir = path.join(ROOT, 'node_modules', '.cache', 'dependency-cruiser');
  const outFile = path.join(outDir, 'tsconfig.workspace-paths.json');
  fs.mkdirSync(outDir, { recursive: true });
  // `include` only keeps TypeScript from rejecting a config without inputs; nothing is compiled.
  const include = [path.join(ROOT, 'packages', '*', 'src'), path.join(ROOT, 'apps', '*', 'src')];
  fs.writeFileSync(outFile, `${JSON.stringify({ compilerOptions: { paths }, include }, null, 2)}\n`);
  return outFile;
}

// One rule per package of the LAYERS table: which workspace packages its production code may reach.
const layerRules = Object.entries(LAYERS)
  .filter(([, allowed]) => allowed !== null)
  .map(([name, allowed]) => ({
    name: `layer-${name}`,
    comment: allowed.length
      ? `${name} may import only these workspace packages: ${allowed.join(', ')}.`
      : `${name} must not import any other workspace package.`,
    severity: 'error',
    from: { path: `^packages/${name}/`, pathNot: TEST_FILES },
    to: {
      path: '^packages/|^@powercontext/',
      pathNot: [
        `^packages/(${[name, ...allowed].join('|')})/`,
        `^@powercontext/(${[name, ...allowed].join('|')})(/|$)`,
      ],
    },
  }));

/**
 * A rule that keeps some npm libraries inside their owning packages (apps are not restricted). Test
 * files are not published, so they may reach a library directly (e.g. the server's tests create a
 * throw-away PostgreSQL database with `pg`).
 */
function ownedLibraries(name, comment, libs, owners) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: '^packages/', pathNot: [inPackages(owners), ...TEST_FILES] },
    to: { path: npm(...libs) },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Circular imports (within or across packages) make modules impossible to reason about alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import must resolve: a typo, a missing dependency or a path that is not exported.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-undeclared-npm-dependency',
      comment:
        'An npm import must be declared in the package.json of the importing package (or the root ' +
        'devDependencies): pnpm will not resolve it for consumers of the published package otherwise.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'core-imports-only-zod',
      comment:
        'memory-core is the dependency-free domain: node: builtins and zod only (plus vitest in tests ' +
        'and in src/testing/, see vitest-only-in-test-code). No workspace package, no other npm package.',
      severity: 'error',
      from: { path: '^packages/memory-core/' },
      to: {
        pathNot: ['^packages/memory-core/', npm('zod', 'vitest', '@vitest/[^/]+')],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'inference-imports-only-zod',
      comment: 'inference holds provider-neutral ports: node: builtins and zod only (vitest in tests).',
      severity: 'error',
      from: { path: '^packages/inference/' },
      to: {
        pathNot: ['^packages/inference/', npm('zod', 'vitest', '@vitest/[^/]+')],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'client-imports-nothing',
      comment:
        'The HTTP client is a thin fetch wrapper with generated types: no npm package at run time ' +
        '(vitest in tests; node: builtins only in tests and their testing-support).',
      severity: 'error',
      from: { path: '^packages/client/', pathNot: TEST_FILES },
      to: { pathNot: ['^packages/client/'] },
    },
    {
      name: 'retrieval-rrf-imports-only-core',
      comment:
        'retrieval-rrf is pure ranking logic over memory-core types: memory-core and node: builtins only.',
      severity: 'error',
      from: { path: '^packages/retrieval-rrf/' },
      to: {
        pathNot: ['^packages/(retrieval-rrf|memory-core)/', npm('vitest', '@vitest/[^/]+')],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'decision-model-not-to-core',
      comment: 'decision-model builds on inference only; it must stay independent of memory-core.',
      severity: 'error',
      from: { path: '^packages/decision-model/' },
      to: { path: '^packages/memory-core/|^@powercontext/memory-core(/|$)' },
    },
    ...layerRules,
    ownedLibraries(
      'database-libs-only-in-store-postgres',
      'kysely, pg, pgvector and @electric-sql/* belong to store-postgres (and the runtime/apps that wire it).',
      DATABASE_LIBS,
      DATABASE_OWNERS,
    ),
    ownedLibraries(
      'ai-sdk-only-in-inference-ai-sdk',
      'ai and @ai-sdk/* belong to inference-ai-sdk (and the runtime/apps that wire it).',
      AI_LIBS,
      AI_OWNERS,
    ),
    ownedLibraries(
      'opentelemetry-only-in-observability-otel',
      '@opentelemetry/* belongs to observability-otel (and the runtime/apps that wire it).',
      OTEL_LIBS,
      OTEL_OWNERS,
    ),
    ownedLibraries(
      'di-container-only-in-runtime',
      'tsyringe and reflect-metadata belong to the composition root (runtime, apps): libraries stay ' +
        'free of decorators and containers.',
      DI_LIBS,
      DI_OWNERS,
    ),
    {
      name: 'vitest-only-in-test-code',
      comment:
        'The test runner may be imported by tests and exported test kits (src/testing/) only, never by ' +
        'production code.',
      severity: 'error',
      from: { pathNot: [...TEST_FILES, TEST_KITS] },
      to: { path: npm('vitest', '@vitest/[^/]+') },
    },
    {
      name: 'no-deep-import-by-package-name',
      comment:
        'Import another package through a public entry point of its package.json exports ' +
        "(e.g. '@powercontext/memory-core' or '@powercontext/memory-core/testing'), never its src/ or dist/.",
      severity: 'error',
      from: {},
      to: { path: '^@powercontext/[^/]+/(src|dist)(/|$)|(^|/)node_modules/@powercontext/[^/]+/(src|dist)/' },
    },
    {
      name: 'no-relative-import-into-other-package',
      comment:
        'A package reaches another package only through its public entry points (@powercontext/<name>), ' +
        'never with a relative path into its src/ or dist/.',
      severity: 'error',
      from: { path: '^(packages/[^/]+)/' },
      to: { path: '^packages/', pathNot: '^$1/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'apps-use-public-entry-points',
      comment:
        'Apps import packages/runtime and the public entry points of packages by name, never files ' +
        'inside packages/ by relative path.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^packages/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'no-app-to-app',
      comment: 'Apps are leaves: one app must not import another.',
      severity: 'error',
      from: { path: '^(apps/[^/]+)/' },
      to: { path: '^apps/', pathNot: '^$1/' },
    },
    {
      name: 'packages-not-to-apps',
      comment: 'Libraries never depend on applications.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'unregistered-package',
      comment:
        'This package is not in the LAYERS table of .dependency-cruiser.cjs, so its workspace imports are ' +
        'not checked: add it there.',
      severity: 'warn',
      from: { path: `^packages/`, pathNot: inPackages(Object.keys(LAYERS)) },
      to: { path: '^packages/|^@powercontext/' },
    },
  ],
  options: {
    // Build output and installed packages are never cruised as sources. (doNotFollow rather than
    // exclude: an excluded module disappears from the graph together with the imports that reach it,
    // which would hide an import of another package's dist/ or of a forbidden npm package.)
    doNotFollow: { path: ['(^|/)node_modules/', '(^|/)dist/'] },
    exclude: { path: ['(^|/)coverage/', '(^|/)\\.turbo/'] },
    // Type-only imports are dependencies too: a layer must not even see another layer's types.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: writeWorkspacePathsTsConfig() },
    // Follow pnpm's symlinks to the real files, so workspace packages land in packages/*.
    preserveSymlinks: false,
    // Dependencies declared in the root package.json (vitest, typescript) count for every package.
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
