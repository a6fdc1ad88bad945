import { defineConfig } from 'vitest/config';

// Native addons are not safe under worker threads' teardown: run each test
// file in its own forked process. The global setup rebuilds a stale dist/
// (integration tests run the real server from it) and builds the test IP
// database once.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
