// SIGTERM while a refresh downloads from a publisher that drips one byte a
// second (never silent long enough for SPLITGUARD_IPDB_FETCH_TIMEOUT_MS, so
// only the 300-s total limit would end it): the server stops within seconds,
// abandoning the download, whether it is the ASN data's or a feed's. Before
// the fix the threads stopped at once and the process stayed up for the
// whole download (still running 90 s after SIGTERM), serving nothing and
// holding the store open; with several sources and ~30 feeds that each may
// take 300 s, a stop could wait for hours.
import http from 'node:http';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer } from '../../helpers/server.js';

let drip: Loopback;
let base = '';

beforeAll(async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const timer = setInterval(() => res.write('1'), 1000);
    res.on('close', () => clearInterval(timer));
  });
  drip = await listenLoopback(server);
  base = drip.base;
});
afterAll(() => drip?.close());

it.each([
  ['the ASN data', () => ({ SPLITGUARD_IPDB_SOURCES: `${base}/asn-ipv4.csv|${base}/asn-ipv6.csv` })],
  ['a feed', () => ({ SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${base}/tor.txt` })],
])('stops within seconds of SIGTERM while %s drips in', async (_what, env) => {
  const server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...env(), SPLITGUARD_IPDB_FETCH_TIMEOUT_MS: '5000' } });
  try {
    const r = await triggerRefresh(server, server.apiKey);
    expect(r.status, r.body).toBe(202);
    await waitUntil(() => databaseStatus(server), (s) => s.refresh_running, 10_000);
    // Inside the download: bytes in, far from its 300-s limit.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const t0 = performance.now();
    void server.stop('SIGTERM');
    const code = await Promise.race([server.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
    const ms = Math.round(performance.now() - t0);
    expect(code, `${ms} ms after SIGTERM\n${server.output().slice(-2000)}`).toBe(0);
  } finally {
    await server.close();
  }
}, 40_000);
