// Every thread of the build process runs under SCHED_IDLE, not only its main
// thread: V8's collector and compiler threads, started with the process, do
// much of a large build's work, and at normal priority they took CPU from
// the serving threads. The build is held stopped (SIGSTOP) while its
// threads' policies are read from /proc; the server's own threads stay at
// normal priority (the build's policy is its process's alone).
import { expect, it } from 'vitest';
import { childProcesses, SCHED_IDLE, threadPolicies } from '../../helpers/proc.js';
import { serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

it('runs every thread of the build under SCHED_IDLE', async () => {
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const { value: [build] } = await waitUntil(() => childProcesses(ctx.server.process.pid!), (c) => c.length === 1, 60_000, 5);
  // The policy is set thread by thread, the main one first: a read taken
  // while the build is part way through sees some threads still normal, so
  // the build is read (stopped, for one consistent listing) until every
  // thread is idle; a thread left out keeps it from passing.
  const { value: policies } = await waitUntil(() => stoppedPolicies(build), (p) => Object.values(p).every((x) => x === SCHED_IDLE), 30_000, 5);
  expect(Object.keys(policies).length).toBeGreaterThan(1);
  expect(Object.entries(threadPolicies(ctx.server.process.pid!)).filter(([, p]) => p === SCHED_IDLE)).toEqual([]);
});

function stoppedPolicies(pid: number): Record<string, number> {
  process.kill(pid, 'SIGSTOP');
  try {
    return threadPolicies(pid);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}
