#!/usr/bin/env node
// `pnpm release:pack [DIR]`: builds the workspace, then packs every publishable package into one folder
// (default ./release, emptied first). It versions nothing and publishes nothing: `changeset version`
// sets the versions, `changeset publish` (or `npm publish DIR/*.tgz`) publishes. The tarballs are what a
// user gets from the registry, so they can be installed before anything is published:
//   npm install ./release/*.tgz            (into a project)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packPackage, publicPackages, root } from './lib/public-packages.mjs';

const destination = path.resolve(process.argv[2] ?? path.join(root, 'release'));
const build = spawnSync('pnpm', ['--reporter', 'silent', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

fs.rmSync(destination, { recursive: true, force: true });
fs.mkdirSync(destination, { recursive: true });
for (const pkg of publicPackages()) {
  const tarball = packPackage(pkg, destination);
  const { size } = fs.statSync(tarball);
  console.log(
    `${pkg.name}@${pkg.version}  ${path.relative(process.cwd(), tarball)}  ${(size / 1024).toFixed(0)} KiB`,
  );
}
console.log(`\nrelease:pack: ${publicPackages().length} tarballs in ${destination}`);
