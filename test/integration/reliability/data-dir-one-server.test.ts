// A data directory belongs to one server at a time (src/data-lock.ts): a
// second `serve` on it is refused before it touches anything, naming the
// server that holds it, and that server goes on serving. The lock is the
// kernel's, on the directory itself: no file in it can be removed to lift
// it, and a server ended by kill -9 leaves nothing behind that would refuse
// the next start.
import { readdirSync, rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { serveToExit, startServer, type TestServer, tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('refuses a second server on the data directory, and the first goes on serving', async () => {
  const first = await startServer({ dataDir });
  servers.push(first);
  const second = serveToExit(dataDir);
  expect(second.error, 'the second start must end by itself').toBeUndefined();
  expect(second.status, second.stderr).toBe(1);
  expect(second.stderr).toBe(
    `splitguard: ${dataDir} is held by the server with pid ${first.process.pid}; stop it first: a data directory belongs to one server at a time, and a restore needs it to itself\n`,
  );
  expect(second.stdout, 'refused before it logged a start').toBe('');
  // The lock is on the directory itself: there is no lock file a cleaner could remove to lift it.
  expect(readdirSync(dataDir).filter((e) => /lock/i.test(e))).toEqual([]);
  expect((await call(first.ports[0], first.ca, 'GET', '/healthz')).status).toBe(200);
  expect((await call(first.ports[0], first.ca, 'GET', '/v1/account', first.apiKey)).status).toBe(200);
});

it('starts again once the holder is gone, even after kill -9', async () => {
  const first = servers[0];
  expect(await first.stop('SIGKILL')).toBeNull();
  const next = await startServer({ dataDir });
  servers.push(next);
  expect((await call(next.ports[0], next.ca, 'GET', '/healthz')).status).toBe(200);
  expect(serveToExit(dataDir).stderr).toContain(`is held by the server with pid ${next.process.pid}`);
  expect(await next.stop()).toBe(0);
  const after = await startServer({ dataDir });
  servers.push(after);
  expect((await call(after.ports[0], after.ca, 'GET', '/healthz')).status).toBe(200);
});
