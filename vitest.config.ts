import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real server processes; each bounds its own waits with deadlines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time on 2 cores (vitest's default is cores - 1): the kill matrices are CPU-bound, most other
    // files wait on processes and deadlines, so they overlap instead of queueing behind the matrices (a clean-clone
    // .ci/run: 862 s of vitest with 2, 808 s with 3; docs/performance.md).
    maxWorkers: 3,
    // The JSON results feed the 'N passed, N failed' line of .ci/run.
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/vitest-results.json' },
  },
});
