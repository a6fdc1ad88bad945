// A client that asks for an answer and never reads it: the answer waits in
// the server's send queue (the kernel's, then uWS's own buffer) with the
// client's window closed. With SPLITGUARD_STALL_SECONDS=2 the connection
// guard closes such a connection (data waits and the client acknowledges
// nothing) within a few seconds, with a reset; the memory it held is given
// back and the server answers everyone else. The client has a 4 KiB receive
// buffer (small-window-client.py) and asks for the console's script (41 KB),
// 4 connections at once. A client that pipelines instead is closed by uWS
// itself at the request after the one left pending
// (attack/pipelined-unread*.test.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { metric, rssMiB, shedInLogs, sleep } from '../../helpers/connections.js';
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

const CLIENT = fileURLToPath(new URL('../../helpers/small-window-client.py', import.meta.url));

/** Runs the small-window client; resolves once it has sent its request, with how it ended. */
async function smallWindowClient(port: number, caFile: string, request: string): Promise<Promise<string>> {
  const child = spawn('python3', [CLIENT, String(port), caFile, request, '15'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.value !== 'sent') throw new Error(`small-window client: ${first.value ?? 'no output'}`);
  return iterator.next().then((r) => String(r.value));
}

it('closes clients that never read their answer, and gives the memory back', async () => {
  const pid = server.process.pid!;
  const port = server.ports[0];
  const caFile = path.join(server.dataDir, 'tls', 'cert.pem');
  const before = await metric(server, 'splitguard_connections_shed_total{reason="not_reading"}');
  const rssStart = rssMiB(pid);
  const request = 'GET /console/app.js HTTP/1.1\r\nHost: localhost\r\n\r\n';
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => smallWindowClient(port, caFile, request)));
  const outcomes = await Promise.all(clients);
  expect(outcomes.every((o) => o.startsWith('closed')), `outcomes: ${outcomes.join(', ')}`).toBe(true);
  // The guard closed them, not uWS on its own.
  expect(await metric(server, 'splitguard_connections_shed_total{reason="not_reading"}')).toBe(before + CONNECTIONS);
  expect(shedInLogs(server, 'not_reading')).toBe(CONNECTIONS);

  // The memory goes back near where it started.
  let rss = rssMiB(pid);
  for (let i = 0; i < 50 && rss > rssStart + RSS_SLACK_MIB; i++) {
    await sleep(100);
    rss = rssMiB(pid);
  }
  expect(rss - rssStart, `RSS in MiB: ${JSON.stringify({ rssStart, rss })}`).toBeLessThan(RSS_SLACK_MIB);

  const r = await call(port, server.ca, 'GET', '/healthz');
  expect(r.status).toBe(200);
});
