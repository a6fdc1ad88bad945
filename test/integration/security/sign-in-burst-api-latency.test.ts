// A burst of 100 anonymous sign-ins from 100 addresses at once: the password
// hashing they ask for is bounded (2 at a time in the whole process, 16
// waiting per thread, the rest refused at once with 429), so the API's own
// work in libuv's thread pool is not queued behind it. Before, POST
// /v1/routes took 8-10 s during such a burst instead of about 15 ms.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInRequest } from '../../helpers/console-session.js';
import { api, createRoute, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  await createRoute(server); // warm
});
afterAll(() => server?.close());

it('answers route creation within a second or two while the sign-ins are refused or queued', async () => {
  const burst = Promise.all(
    Array.from({ length: 100 }, (_, i) => signInRequest(server, `nobody${i}@x.y`, 'whatever-1', { localAddress: `127.0.4.${i + 1}` })),
  );
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  const created = await api(server, 'POST', '/v1/routes', { name: 'during the burst', page_a: 'https://a.example/', page_b: 'https://b.example/' });
  const ms = Date.now() - started;
  expect(created.status).toBe(201);
  const statuses = (await burst).map((r) => r.status);
  expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  // A loose bound: starvation took 8-10 s; unstarved this is milliseconds.
  expect(ms).toBeLessThan(2000);
});
