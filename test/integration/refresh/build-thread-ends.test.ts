// A refresh's build thread ends with the refresh, so the memory it grew goes
// back to the system instead of staying with the serving process: after an
// updated refresh the server runs the same threads as before it, and the
// build thread's name never stays in /proc/<pid>/task.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseStatus, NO_RATE_LIMIT, triggerRefresh, waitUntil } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.node('valid') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

const threads = () => readdirSync(`/proc/${server.process.pid}/task`).length;

it('leaves no build thread behind after an updated refresh', async () => {
  const before = threads();
  const started = await triggerRefresh(server, server.apiKey, 0);
  expect(started.status, started.body).toBe(202);
  let during = 0;
  const { value: done } = await waitUntil(
    () => {
      during = Math.max(during, threads());
      return databaseStatus(server);
    },
    (s) => !s.refresh_running && s.last_refresh !== null,
    60_000,
    20,
  );
  expect(done.last_refresh?.outcome).toBe('updated');
  expect(during).toBeGreaterThan(before); // the build did run in a thread of its own
  expect(threads()).toBe(before);
});
