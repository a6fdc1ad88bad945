// A refresh's build runs in a process of its own, which ends with it: its
// heap is not the serving threads' (a large build's collections in a worker
// thread held a lock V8 shares across the process, and the serving threads
// waited on it for seconds), and the memory it grew goes back to the system.
// During an updated refresh the server has a child process; after it, none,
// and the server runs the same threads as before.
import { readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { childProcesses } from '../../helpers/proc.js';
import { databaseStatus, serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

const pid = () => ctx.server.process.pid!;
const threads = () => readdirSync(`/proc/${pid()}/task`).length;
/** The server's child processes. */
const children = () => childProcesses(pid());

it('builds in a child process that ends with the refresh', async () => {
  const before = threads();
  expect(children()).toEqual([]);
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  const seen = new Set<number>();
  const { value: done } = await waitUntil(
    () => {
      for (const c of children()) seen.add(c);
      return databaseStatus(ctx.server);
    },
    (s) => !s.refresh_running && s.last_refresh !== null,
    60_000,
    20,
  );
  expect(done.last_refresh?.outcome).toBe('updated');
  expect(seen.size).toBe(1);
  expect(children()).toEqual([]);
  expect(threads()).toBe(before);
});
