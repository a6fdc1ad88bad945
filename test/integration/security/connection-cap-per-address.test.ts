// Per-address connection cap: with SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS=20,
// 60 idle TLS connections from 127.0.0.2 are cut down to 20 within a few
// seconds (the connection guard looks once a second), while a client from
// 127.0.0.1 is still answered. The shed connections are counted by reason in
// /metrics and in the log. (uWS itself ends connections idle for 10 s; the
// test is done well before.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { type HeldConnection, holdConnection, metric, shedInLogs, sleep } from '../../helpers/connections.js';
import { waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const CAP = 20;
let server: TestServer;
const held: HeldConnection[] = [];

beforeAll(async () => {
  server = await startServer({ env: { SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS: String(CAP) } });
});
afterAll(async () => {
  for (const c of held) c.socket.destroy();
  await server?.close();
});

it('cuts one address down to the cap and keeps answering others', async () => {
  const port = server.ports[0];
  held.push(...(await Promise.all(Array.from({ length: 3 * CAP }, () => holdConnection(port, server.ca, '127.0.0.2')))));
  const open = () => held.filter((c) => !c.closed).length;
  expect(open()).toBe(3 * CAP);

  const { ms } = await waitUntil(async () => open(), (n) => n <= CAP, 5000);
  expect(ms).toBeLessThan(5000);
  // Exactly the excess went, and no more in the next looks.
  await sleep(1500);
  expect(open()).toBe(CAP);

  const r = await call(port, server.ca, 'GET', '/healthz');
  expect(r.status).toBe(200);

  expect(await metric(server, 'splitguard_connections_shed_total{reason="per_address"}')).toBe(2 * CAP);
  expect(await metric(server, 'splitguard_connections_shed_total{reason="global"}')).toBe(0);
  expect(await metric(server, 'splitguard_connections')).toBeGreaterThanOrEqual(CAP);
  expect(shedInLogs(server, 'per_address')).toBe(2 * CAP);
  const limits = server.logs().find((l) => l.event === 'connection_limits');
  expect(limits).toMatchObject({ maxConnectionsPerAddress: CAP, stallSeconds: 10 });
});
