// The open-file limit: a server started with `ulimit -n 300` (soft and hard)
// is flooded with idle TLS connections from many loopback addresses until
// it cannot accept any more. Without a guard, uSockets would retry accept()
// in a busy loop at 100% CPU and answer no one. The global cap (default 80%
// of the limit: 240) sheds the idlest connections: a fresh client is answered
// within a few seconds, the CPU settles, and SIGTERM still ends the server
// with exit code 0. The per-address cap is set high so that only the global
// cap acts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { cpuTicks, type HeldConnection, holdConnection, metric, shedInLogs, sleep } from '../../helpers/connections.js';
import { waitUntil } from '../../helpers/routes.js';
import { fileLimitWrapper, startServer, type TestServer } from '../../helpers/server.js';

const LIMIT = 300;
const CLOCK_TICKS_PER_SECOND = 100;
const wrapper = fileLimitWrapper(LIMIT);

let server: TestServer;
const held: HeldConnection[] = [];
beforeAll(async () => {
  server = await startServer({ wrapper, env: { SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS: '10000' } });
});
afterAll(async () => {
  for (const c of held) c.socket.destroy();
  await server?.close();
});

/**
 * Opens 3 connections from each of 127.0.0.2 ... 127.0.0.200 at once, twice
 * the descriptors the server has; resolves once each has finished its
 * handshake or given up after 3 s (it sat in the listen queue: accept failed).
 */
async function flood(port: number): Promise<{ opened: number; refused: number }> {
  const attempts = [];
  for (let a = 2; a <= 200; a++) for (let i = 0; i < 3; i++) attempts.push(holdConnection(port, server.ca, `127.0.0.${a}`, 3000));
  let refused = 0;
  for (const r of await Promise.allSettled(attempts)) {
    if (r.status === 'fulfilled') held.push(r.value);
    else refused++;
  }
  return { opened: held.length, refused };
}

/** The server's warnings and errors so far, to say why an expectation failed. */
const trouble = () => JSON.stringify(server.logs().filter((l) => l.level === 'error' || l.level === 'warn'));

it('keeps answering and does not spin once the descriptors run out', async () => {
  const pid = server.process.pid!;
  const port = server.ports[0];
  expect(server.logs().find((l) => l.event === 'connection_limits')).toMatchObject({ fileLimit: LIMIT, maxConnections: LIMIT * 0.8 });
  // Healthy before the flood, so that a failure below is the flood's doing.
  const before = await request({ port, ca: server.ca, path: '/healthz' });
  expect(before.status, `before the flood: ${trouble()}`).toBe(200);

  const { opened, refused } = await flood(port);
  // The flood got further than the cap and then found the server unable to accept.
  expect(opened).toBeGreaterThan(LIMIT * 0.8);
  expect(refused).toBeGreaterThan(0);

  // The guard sheds down to the cap ...
  await waitUntil(async () => shedInLogs(server, 'global'), (n) => n > 0, 5000);
  // ... and a fresh client is answered within a few seconds.
  const { ms } = await waitUntil(
    () => request({ port, ca: server.ca, path: '/healthz', timeoutMs: 2000 }).then((r) => r.status, () => 0),
    (status) => status === 200,
    8000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; the server logged: ${trouble()}`);
  });
  expect(ms).toBeLessThan(8000);

  // Once the listen queue has drained, the CPU is not pegged: under half a core over 2 s.
  await sleep(1500);
  const t0 = cpuTicks(pid);
  const w0 = performance.now();
  await sleep(2000);
  const share = (cpuTicks(pid) - t0) / CLOCK_TICKS_PER_SECOND / ((performance.now() - w0) / 1000);
  expect(share).toBeLessThan(0.5);

  expect(await metric(server, 'splitguard_connections_shed_total{reason="global"}')).toBeGreaterThan(0);
  expect(await metric(server, 'splitguard_connections_shed_total{reason="per_address"}')).toBe(0);
  expect(await metric(server, 'splitguard_connections')).toBeLessThanOrEqual(LIMIT * 0.8 + 1);

  expect(await server.stop()).toBe(0);
});
