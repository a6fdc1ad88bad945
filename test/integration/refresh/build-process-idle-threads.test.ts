// Every thread of the build process runs under SCHED_IDLE, not only its main
// thread: V8's collector and compiler threads, started with the process, do
// much of a large build's work, and at normal priority they took CPU from
// the serving threads. The build is held stopped (SIGSTOP) once its main
// thread is idle, and each of its threads' policies read from /proc; the
// server's own threads stay at normal priority (the build's policy is its
// process's alone).
import { expect, it } from 'vitest';
import { childProcesses, SCHED_IDLE, schedulingPolicy, threadPolicies } from '../../helpers/proc.js';
import { serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

it('runs every thread of the build under SCHED_IDLE', async () => {
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const { value: [build] } = await waitUntil(() => childProcesses(ctx.server.process.pid!), (c) => c.length === 1, 60_000, 5);
  await waitUntil(() => schedulingPolicy(build), (p) => p === SCHED_IDLE, 30_000, 5);
  process.kill(build, 'SIGSTOP');
  let policies: Record<string, number>;
  try {
    policies = threadPolicies(build);
  } finally {
    process.kill(build, 'SIGCONT');
  }
  expect(Object.keys(policies).length).toBeGreaterThan(1);
  expect(Object.entries(policies).filter(([, p]) => p !== SCHED_IDLE)).toEqual([]);
  expect(Object.entries(threadPolicies(ctx.server.process.pid!)).filter(([, p]) => p === SCHED_IDLE)).toEqual([]);
});
