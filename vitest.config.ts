import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // From the root (`pnpm test:watch`, `pnpm exec vitest run <file>`, test:node-versions) every package's
    // tests; from a package's folder, where its `test` script runs this config (turbo.json), its own.
    // The inspector's pure modules (packages/server/ui/src) have their unit tests beside them.
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/ui/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'src/**/*.test.ts',
      'ui/src/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a page or a process shows after an action; vitest's 1 s default is
    // shorter than a search takes on a loaded two-core machine (inspector-browse failed CI so).
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // vitest's default is one fewer worker than cores: one on CI's two. Many files wait on child
    // processes, PostgreSQL and HTTP rather than compute, so two overlap well there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The test processes compile PGlite's WebAssembly with V8's baseline compiler only, as the
    // short-lived commands do (rfcs/0001, "Start-up"): most files open PGlite for a few statements,
    // and optimising its 9 MB in the background cost more CPU than it saved. store-postgres's
    // tests: 123 s against 132 s, 2.2 against 2.8 user CPU-minutes.
    execArgv: ['--liftoff-only'],
  },
});
