import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real server processes; each bounds its own waits with deadlines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The JSON results feed the 'N passed, N failed' line of .ci/run.
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/vitest-results.json' },
  },
});
