/**
 * The library's start, as an application has it (issue 30): a fresh Node process imports
 * `@powercontext/runtime`, calls `createRuntime()` on an existing embedded data directory and searches
 * once. Prints `first hit` when the search has answered, then closes the runtime. `pnpm bench:startup`
 * times it from spawn to that line, beside the command line's `memory search`.
 *
 * Usage: node apps/bench/dist/library-first-hit.js DATA_DIR SCOPE QUERY
 */
import { createRuntime } from '@powercontext/runtime';

const [dataDir, scope, query] = process.argv.slice(2);
if (!dataDir || !scope || !query) throw new Error('usage: library-first-hit.js DATA_DIR SCOPE QUERY');
const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
try {
  const result = await runtime.memory.forScope(scope).search({ query, limit: 5 });
  if (result.hits.length === 0) throw new Error(`no hit for "${query}" in scope "${scope}"`);
  console.log('first hit');
} finally {
  await runtime.close();
}
