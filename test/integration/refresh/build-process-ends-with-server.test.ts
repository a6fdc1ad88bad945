// A build process whose server dies ends with it: it would otherwise go on
// for seconds to minutes using CPU, up to SPLITGUARD_BUILD_MEMORY_MB of
// memory and the store's disk for a database nobody will install. Here the
// build is held stopped (SIGSTOP) at the moment its server is killed, so it
// cannot have finished on its own: the kernel ends it (the parent-death
// signal it asked for at start), stopped as it is. It is stopped once its
// set-up has run (its main thread under SCHED_IDLE, which comes after).
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

/** The process's children, from every one of its threads' lists. */
const childrenOf = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).flatMap((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });

/** A thread's scheduling policy: field 41 of its stat line (5 is SCHED_IDLE). */
const policy = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[38]);
const SCHED_IDLE = 5;

/** Whether a process exists and has not yet been reaped (a zombie has ended). */
const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

it('ends a running build when its server is killed', async () => {
  const server = ctx.server.process.pid!;
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const { value: [build] } = await waitUntil(() => childrenOf(server), (c) => c.length === 1, 60_000, 5);
  await waitUntil(() => policy(build), (p) => p === SCHED_IDLE, 30_000, 5);
  process.kill(build, 'SIGSTOP');
  try {
    expect(await ctx.server.stop('SIGKILL')).toBeNull();
    await waitUntil(() => alive(build), (a) => !a, 5_000, 20);
  } finally {
    if (alive(build)) process.kill(build, 'SIGKILL');
  }
});
