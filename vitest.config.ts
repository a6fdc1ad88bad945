import { defineConfig } from 'vitest/config';

// Native addons are not safe under worker threads' teardown: run each test
// file in its own forked process.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
