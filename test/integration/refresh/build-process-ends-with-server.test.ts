// A build process whose server dies ends with it: it would otherwise go on
// for seconds to minutes using CPU, up to SPLITGUARD_BUILD_MEMORY_MB of
// memory and the store's disk for a database nobody will install. Here the
// build is held stopped (SIGSTOP) at the moment its server is killed, so it
// cannot have finished on its own: the kernel ends it (the parent-death
// signal it asked for at start), stopped as it is. It is stopped once its
// set-up has run (its main thread under SCHED_IDLE, which comes after).
import { expect, it } from 'vitest';
import { childProcesses, running, SCHED_IDLE, schedulingPolicy } from '../../helpers/proc.js';
import { serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

it('ends a running build when its server is killed', async () => {
  const server = ctx.server.process.pid!;
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const { value: [build] } = await waitUntil(() => childProcesses(server), (c) => c.length === 1, 60_000, 5);
  await waitUntil(() => schedulingPolicy(build), (p) => p === SCHED_IDLE, 30_000, 5);
  process.kill(build, 'SIGSTOP');
  try {
    expect(await ctx.server.stop('SIGKILL')).toBeNull();
    await waitUntil(() => running(build), (a) => !a, 5_000, 20);
  } finally {
    if (running(build)) process.kill(build, 'SIGKILL');
  }
});
