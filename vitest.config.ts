import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one fewer worker than cores: one on CI's two. Many files wait on child
    // processes, PostgreSQL and HTTP rather than compute, so two overlap well there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
