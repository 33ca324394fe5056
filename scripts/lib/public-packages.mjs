// The publishable packages of the workspace (packages/* without "private": true) and how to pack them.
// Shared by `pnpm release:pack`, `pnpm check:packs` and `pnpm check:install`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** Every publishable package: name, version, folder, manifest and the entry points a consumer imports. */
export function publicPackages() {
  const found = [];
  for (const dir of fs.readdirSync(path.join(root, 'packages')).sort()) {
    const pkgDir = path.join(root, 'packages', dir);
    const manifestPath = path.join(pkgDir, 'package.json');
    if (!fs.existsSync(manifestPath)) continue;
    const manifest = readJson(manifestPath);
    if (manifest.private) continue;
    // Entry points a consumer can import: every `exports` key except package.json and other data files.
    const subpaths = Object.keys(manifest.exports ?? { '.': null }).filter((key) => key.startsWith('.'));
    const entries = subpaths
      .filter((key) => !key.includes('*') && !/\.(json|css)$/.test(key))
      .map((key) => manifest.name + key.slice(1));
    found.push({ name: manifest.name, version: manifest.version, dir: pkgDir, manifest, entries });
  }
  return found;
}

export function privatePackageNames() {
  const names = [];
  for (const base of ['packages', 'apps']) {
    for (const dir of fs.readdirSync(path.join(root, base))) {
      const manifestPath = path.join(root, base, dir, 'package.json');
      if (fs.existsSync(manifestPath) && readJson(manifestPath).private)
        names.push(readJson(manifestPath).name);
    }
  }
  return names;
}

/**
 * `pnpm pack`s one package into `destination` (workspace:^ ranges become real versions) and returns the
 * tarball's path. Throws with pnpm's output when packing fails or dist/ is missing.
 */
export function packPackage(pkg, destination) {
  if (!fs.existsSync(path.join(pkg.dir, 'dist'))) {
    throw new Error(`${pkg.dir}/dist is missing: run \`pnpm build\` first`);
  }
  const result = spawnSync('pnpm', ['pack', '--json', '--pack-destination', destination], {
    cwd: pkg.dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`pnpm pack failed in ${pkg.dir}:\n${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout).filename;
}
