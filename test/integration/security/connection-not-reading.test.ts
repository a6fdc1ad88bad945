// A client that pipelines requests and never reads the answers: uWS keeps
// parsing and answering, and once the kernel's queues are full it buffers
// the answers in the server's memory, without bound. With
// SPLITGUARD_STALL_SECONDS=2 the connection guard closes such a connection
// (data waits and the client acknowledges nothing) within a few seconds;
// the memory it held is given back and the server answers everyone else.
// Both a cheap answer (HEAD /healthz) and the redirect (GET /r/<code>), each
// over 4 connections at once (about 2 MB/s of answers each), so that what the
// server buffers shows clearly in its RSS before the guard acts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { metric, pipelineWithoutReading, rssMiB, shedInLogs, sleep } from '../../helpers/connections.js';
import { createRoute } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { SPLITGUARD_STALL_SECONDS: '2' } });
});
afterAll(async () => {
  await server?.close();
});

const CONNECTIONS = 4;
/** How far above its starting RSS the server may stay once the connections are gone. */
const RSS_SLACK_MIB = 8;

async function closesTheNonReaders(request: string): Promise<void> {
  const pid = server.process.pid!;
  const port = server.ports[0];
  const before = await metric(server, 'splitguard_connections_shed_total{reason="not_reading"}');
  const rssStart = rssMiB(pid);
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => pipelineWithoutReading(port, server.ca, request)));
  let peak = rssStart;
  const watch = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  const outcomes = await Promise.race([Promise.all(clients.map((c) => c.ended)), sleep(15_000).then(() => null)]);
  clearInterval(watch);
  for (const c of clients) c.stop();
  const seen = { outcomes, rssStart, peak, sent: clients.map((c) => c.sent) };
  expect(outcomes, `the server did not close every connection within 15 s: ${JSON.stringify(seen)}`).not.toBeNull();
  // The guard closed them (not uWS on its own), with a reset: the clients see ECONNRESET.
  expect(await metric(server, 'splitguard_connections_shed_total{reason="not_reading"}')).toBe(before + CONNECTIONS);
  expect(outcomes!.map((o) => o.how)).toEqual(Array(CONNECTIONS).fill('ECONNRESET'));

  // The memory goes back near where it started.
  let rss = rssMiB(pid);
  for (let i = 0; i < 50 && rss > rssStart + RSS_SLACK_MIB; i++) {
    await sleep(100);
    rss = rssMiB(pid);
  }
  expect(rss - rssStart, `RSS in MiB: ${JSON.stringify({ ...seen, rss })}`).toBeLessThan(RSS_SLACK_MIB);

  const r = await call(port, server.ca, 'GET', '/healthz');
  expect(r.status).toBe(200);
}

it('closes a client pipelining HEAD /healthz without reading', async () => {
  await closesTheNonReaders('HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
});

it('closes a client pipelining GET /r/<code> without reading', async () => {
  const route = await createRoute(server);
  await closesTheNonReaders(`GET /r/${route.code} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(shedInLogs(server, 'not_reading')).toBe(2 * CONNECTIONS);
});
