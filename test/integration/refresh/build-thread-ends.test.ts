// A refresh's build thread ends with the refresh, so the memory it grew goes
// back to the system instead of staying with the serving process: after an
// updated refresh the server runs the same threads as before it, and the
// build thread's name never stays in /proc/<pid>/task.
import { readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { databaseStatus, serverWithValidSource, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const ctx = serverWithValidSource();

const threads = () => readdirSync(`/proc/${ctx.server.process.pid}/task`).length;

it('leaves no build thread behind after an updated refresh', async () => {
  const before = threads();
  const started = await triggerRefresh(ctx.server, ctx.server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  let during = 0;
  const { value: done } = await waitUntil(
    () => {
      during = Math.max(during, threads());
      return databaseStatus(ctx.server);
    },
    (s) => !s.refresh_running && s.last_refresh !== null,
    60_000,
    20,
  );
  expect(done.last_refresh?.outcome).toBe('updated');
  expect(during).toBeGreaterThan(before); // the build did run in a thread of its own
  expect(threads()).toBe(before);
});
