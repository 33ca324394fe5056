import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The reliability suite (`pnpm test:reliability`): its own config, so the scenario files
// (src/tests/*.reliability.ts) never match the `*.test.ts` globs of `pnpm test`. Files run one after
// the other: each starts real server processes, and the load and timing checks must not share the
// two cores with another scenario.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['src/tests/**/*.reliability.ts'],
    globalSetup: ['src/testing-support/global-setup.ts'],
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
