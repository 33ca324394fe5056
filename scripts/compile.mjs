#!/usr/bin/env node
// `tsgo -b [PROJECT...]` in the current folder, then the bundles of the packages that an application
// imports through dist/bundle/ (scripts/bundle-packages.mjs; those whose bundle is older than tsgo's
// output). Every script that builds before it runs (`pnpm demo`, `pnpm bench`, a package's `build`)
// compiles through this, not `tsgo -b` alone: the seven bundled packages' `exports` name only their
// bundles, so tsgo's output alone leaves them missing (a fresh clone) or older than their sources.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePackages } from './bundle-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsgo = spawnSync(join(root, 'node_modules', '.bin', 'tsgo'), ['-b', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
if (tsgo.status !== 0) process.exit(tsgo.status ?? 1);
await bundlePackages();
