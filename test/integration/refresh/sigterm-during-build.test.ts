// SIGTERM while a refresh builds the downloaded data (a source of 3,000,000
// ranges builds for several seconds, longer under SCHED_IDLE on a busy
// machine): the build's thread is terminated and the server exits at once.
// The downloads already stopped at once, but the build ran to its end before
// the server could exit (6.7 s for such a source).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer } from '../../helpers/server.js';

let source: http.Server;
let url = '';
/** Whether the whole body has been handed to the socket. */
let sent = false;

/** 3,000,000 /30 ranges from 11.0.0.0 in the ip-location-db CSV format, plus the well-known addresses a candidate must resolve; gzip. */
function bigSource(): Buffer {
  const rows: string[] = [];
  for (let i = 0; i < 3_000_000; i++) {
    const v = 184_549_376 + i * 4;
    const a = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.`;
    rows.push(`${a}${v & 255},${a}${(v & 255) + 3},${1 + (i % 5000)},Org ${i % 5000}\n`);
  }
  rows.push(
    '8.8.8.0,8.8.8.255,15169,GOOGLE\n1.1.1.0,1.1.1.255,13335,CLOUDFLARENET\n9.9.9.0,9.9.9.255,19281,QUAD9\n',
    '2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,GOOGLE\n2606:4700::,2606:4700:ffff:ffff:ffff:ffff:ffff:ffff,13335,CLOUDFLARENET\n',
  );
  return gzipSync(Buffer.from(rows.join('')), { level: 1 });
}

beforeAll(async () => {
  const body = bigSource();
  source = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Length': String(body.length) });
    res.end(body, () => {
      sent = true;
    });
  });
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(source.address() as AddressInfo).port}/asn.csv.gz`;
}, 60_000);
afterAll(async () => {
  source?.closeAllConnections();
  await new Promise<void>((resolve) => (source ? source.close(() => resolve()) : resolve()));
});

it('stops within two seconds of SIGTERM while the new database builds', async () => {
  const server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: url } });
  try {
    const r = await triggerRefresh(server, server.apiKey);
    expect(r.status, r.body).toBe(202);
    // The 30 MB arrive in well under a second over loopback; a second later the build runs.
    await waitUntil(async () => sent, (done) => done, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const t0 = performance.now();
    void server.stop('SIGTERM');
    const code = await Promise.race([server.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
    const ms = Math.round(performance.now() - t0);
    expect(code, server.output().slice(-2000)).toBe(0);
    // The stop came during the build: the refresh ends as stopped, nothing installed.
    const finished = server.logs().filter((l) => l.event === 'ipdb_refresh_finished');
    expect(finished, server.output().slice(-2000)).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    expect(server.logs().filter((l) => l.event === 'ipdb_source_failed')).toEqual([]);
    expect(ms, server.output().slice(-3000)).toBeLessThan(2000);
  } finally {
    await server.close();
  }
}, 90_000);
