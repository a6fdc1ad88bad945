// Every thread of the build process runs under SCHED_IDLE, not only its main
// thread: V8's collector and compiler threads, started with the process, do
// much of a large build's work, and at normal priority they took CPU from
// the serving threads. The build is held stopped (SIGSTOP) once its main
// thread is idle, and each of its threads' policies read from /proc.
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

/** A thread's scheduling policy: field 41 of its stat line (5 is SCHED_IDLE, 0 SCHED_OTHER). */
const policy = (stat: string) => Number(stat.replace(/^.*\) /s, '').split(' ')[38]);
const SCHED_IDLE = 5;

it('runs every thread of the build under SCHED_IDLE', async () => {
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const { value: [build] } = await waitUntil(() => childrenOf(ctx.server.process.pid!), (c) => c.length === 1, 60_000, 5);
  await waitUntil(() => policy(readFileSync(`/proc/${build}/stat`, 'utf8')), (p) => p === SCHED_IDLE, 30_000, 5);
  process.kill(build, 'SIGSTOP');
  let policies: Record<string, number>;
  try {
    policies = Object.fromEntries(
      readdirSync(`/proc/${build}/task`).map((t) => [readFileSync(`/proc/${build}/task/${t}/comm`, 'utf8').trim() + `/${t}`, policy(readFileSync(`/proc/${build}/task/${t}/stat`, 'utf8'))]),
    );
  } finally {
    process.kill(build, 'SIGCONT');
  }
  expect(Object.keys(policies).length).toBeGreaterThan(1);
  expect(Object.entries(policies).filter(([, p]) => p !== SCHED_IDLE)).toEqual([]);
});
