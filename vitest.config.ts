import { defineConfig } from 'vitest/config';

// The files that run one at a time, after all the others: load and canary
// tests whose figures mean something only on a quiet machine (a flood, a
// soak, a latency bound, PostgreSQL or Redis taken away for a while), and
// the browser's (Chromium is many processes of its own). Every other file
// runs two at a time on the project's 2-core machines: most of their time is
// spent waiting for a server, a refresh or a child process, not computing.
const ONE_AT_A_TIME = [
  'test/browser/**',
  'test/integration/cluster/*-postgres-away.test.ts',
  'test/integration/cluster/*-postgres-stopped.test.ts',
  'test/integration/cluster/*kill9*.test.ts',
  'test/integration/cluster/redis-outage.test.ts',
  'test/integration/cluster/redis-stall-bounded-wait.test.ts',
  'test/integration/cluster/start-while-postgres-away.test.ts',
  'test/integration/cluster/one-refresh-per-cluster.test.ts',
  'test/integration/cluster/two-nodes-sign-in-limits.test.ts',
  'test/integration/cluster/writes-raced-and-abandoned.test.ts',
  'test/integration/attack/**',
  'test/integration/security/connection-*',
  'test/integration/security/sign-in-*',
  'test/integration/security/console-v1-rate-limit.test.ts',
  'test/integration/reliability/soak-short.test.ts',
  'test/integration/reliability/http-fuzz.test.ts',
  'test/integration/reliability/crash-kill9.test.ts',
  'test/integration/reliability/refresh-source-hangs.test.ts',
  'test/integration/reliability/http-aborted-body.test.ts',
  'test/integration/refresh/swap-under-load.test.ts',
  'test/integration/refresh/schedule-restart.test.ts',
  'test/integration/refresh/sigterm-during-slow-download.test.ts',
  'test/integration/refresh/source-timeout.test.ts',
  'test/integration/refresh/cli-refresh-swap.test.ts',
  'test/integration/server/graceful-shutdown.test.ts',
  'test/integration/server/listen-failure.test.ts',
  'test/integration/experiments/route-detail-many-goals.test.ts',
];

// Native addons are not safe under worker threads' teardown: run each test
// file in its own forked process. The global setup rebuilds a stale dist/
// (integration tests run the real server from it) and builds the test IP
// database once.
export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'two-at-a-time', include: ['test/**/*.test.ts'], exclude: ONE_AT_A_TIME, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'one-at-a-time', include: ONE_AT_A_TIME, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
