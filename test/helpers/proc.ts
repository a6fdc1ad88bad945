// What Linux's /proc says about a process: its children (from every one of
// its threads' lists: a child belongs to the thread that forked it), its
// threads' scheduling policies, and whether it is still running.
import { readdirSync, readFileSync } from 'node:fs';

export function childProcesses(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** sched_setscheduler's number for SCHED_IDLE, as /proc shows it (0 is SCHED_OTHER, the normal one). */
export const SCHED_IDLE = 5;

/**
 * A thread's scheduling policy (`/proc/<pid>/task/<tid>/stat`, or the main
 * thread's with tid omitted): field 41 of the stat line, counted after the
 * command name, which may itself hold spaces and parentheses.
 */
export function schedulingPolicy(pid: number, tid = pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[38]);
}

/** Each thread of a process by `<name>/<tid>`, with its scheduling policy; a thread that ends while it is read is left out. */
export function threadPolicies(pid: number): Record<string, number> {
  return Object.fromEntries(readdirSync(`/proc/${pid}/task`).flatMap((t) => {
    try {
      return [[`${readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim()}/${t}`, schedulingPolicy(pid, Number(t))]];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ESRCH') return [];
      throw err;
    }
  }));
}

/** Whether a process exists and has not ended (a zombie, ended but not yet reaped, has). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(') ') + 2] !== 'Z';
  } catch {
    return false;
  }
}
