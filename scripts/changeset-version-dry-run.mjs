#!/usr/bin/env node
// `pnpm release:dry-run`: what `changeset version` would do, without touching the working tree. Copies
// the manifests, the workspace file and .changeset/ into a scratch folder, runs `changeset version` there,
// and prints each version bump and the CHANGELOG.md entries it wrote. Fails when a package named by a
// changeset gets no CHANGELOG entry, or when the run itself fails (an unparsable changeset, say).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readJson, root } from './lib/public-packages.mjs';

const scratch = fs.mkdtempSync(path.join(tmpdir(), 'powercontext-changeset-dry-run-'));
const copy = (relative) => {
  fs.mkdirSync(path.dirname(path.join(scratch, relative)), { recursive: true });
  fs.cpSync(path.join(root, relative), path.join(scratch, relative), { recursive: true });
};
copy('package.json');
copy('pnpm-workspace.yaml');
copy('.changeset');
const manifests = [];
for (const base of ['packages', 'apps']) {
  for (const dir of fs.readdirSync(path.join(root, base))) {
    const relative = path.join(base, dir, 'package.json');
    if (!fs.existsSync(path.join(root, relative))) continue;
    copy(relative);
    manifests.push(relative);
  }
}

// Package names each changeset file announces (front matter lines `"name": bump`).
const announced = new Set();
for (const file of fs.readdirSync(path.join(root, '.changeset'))) {
  if (!file.endsWith('.md') || file === 'README.md') continue;
  const text = fs.readFileSync(path.join(root, '.changeset', file), 'utf8');
  const frontMatter = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  for (const match of frontMatter.matchAll(/^"([^"]+)":\s*(major|minor|patch)\s*$/gm))
    announced.add(match[1]);
}

const changeset = path.join(root, 'node_modules', '.bin', 'changeset');
const result = spawnSync(changeset, ['version'], { cwd: scratch, encoding: 'utf8' });
if (result.status !== 0) {
  console.error(`changeset version failed:\n${result.stdout}${result.stderr}`);
  process.exit(1);
}

let missing = 0;
console.log('changeset version (dry run; nothing in the working tree changed):\n');
for (const relative of manifests) {
  const before = readJson(path.join(root, relative));
  const after = readJson(path.join(scratch, relative));
  const changelogPath = path.join(scratch, path.dirname(relative), 'CHANGELOG.md');
  const changelog = fs.existsSync(changelogPath) ? fs.readFileSync(changelogPath, 'utf8') : '';
  if (before.version === after.version && !changelog) continue;
  const tag = before.private ? ' (private: versioned, not published)' : '';
  console.log(`${after.name}: ${before.version} -> ${after.version}${tag}`);
  if (announced.has(after.name) && !changelog.includes(`## ${after.version}`)) {
    console.log(`  MISSING: no CHANGELOG.md entry for ${after.version}`);
    missing += 1;
  }
  // The newest entry: from its "## <version>" heading up to the next version heading.
  const entry = /## [^\n]+\n[\s\S]*?(?=\n## |\s*$)/.exec(changelog)?.[0] ?? '';
  const lines = entry.split('\n');
  const shown = lines.slice(0, 12).map((line) => `  | ${line}`);
  console.log(
    `${shown.join('\n')}${lines.length > 12 ? `\n  | ... (${lines.length - 12} more lines)` : ''}\n`,
  );
}
fs.rmSync(scratch, { recursive: true, force: true });
console.log(
  `release:dry-run: ${announced.size} packages announced by changesets, ${missing ? `${missing} without a CHANGELOG entry` : 'every one has its CHANGELOG entry'}`,
);
process.exit(missing ? 1 : 0);
