// A publisher cannot fill the data directory's file system: a download stops
// once the file system would keep less than its reserve free (src/ipdb/
// fetch.ts spaceShort), and the store's writes go on. Here the data
// directory is a 160 MiB tmpfs, and the publisher streams (no declared
// length) until it has 64 KiB free, and holds the connection open.
// Before, the download wrote on until the file system was full and waited
// there for the publisher, and route creations were answered 500 meanwhile
// (1,165 of 1,493 in the hostile-publisher review).
import { readFileSync, statfsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotMount, mountTmpfs, unmount } from '../../helpers/faults.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { databaseStatus, refreshFinished, triggerRefresh } from '../../helpers/refresh.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const skip = cannotMount();
if (skip) console.warn(`skipped: ${skip}`);

const IPV6 = readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', 'asn-ipv6.csv'));
const big = (i: number) => ({ name: `route ${i}`, page_a: `https://a.example.com/${'a'.repeat(2000)}`, page_b: `https://b.example.com/${'b'.repeat(2000)}?${i}` });

describe.skipIf(skip !== null)('a publisher filling the data volume', () => {
  const dataDir = tempDataDir();
  let server: TestServer | undefined;
  let publisher: Loopback | undefined;
  /** Whether the download's connection has closed; release ends the held response. */
  let closed = false;
  let release = () => {};
  afterAll(async () => {
    release();
    await server?.close();
    await publisher?.close();
    unmount(dataDir);
  });

  it('stops the download at the reserve, and the store keeps writing', async () => {
    mountTmpfs(dataDir, 160);
    publisher = await listenLoopback(
      http.createServer((req, res) => {
        if (req.url === '/asn-ipv6.csv') return void res.end(IPV6);
        res.writeHead(200, { 'Content-Type': 'text/csv' });
        // Fast while there is room, then a quarter of what is left each 20 ms
        // (so that little is on its way when the volume is looked at), until
        // 64 KiB are left.
        const free = () => {
          const fs = statfsSync(dataDir);
          return fs.bavail * fs.bsize;
        };
        const chunk = Buffer.alloc(1 << 20, 'x');
        const send = (bytes: number) => res.write(chunk.subarray(0, bytes));
        const pump = () => {
          if (closed) return;
          const left = free();
          if (left > 24 * 2 ** 20) {
            if (send(chunk.length)) setImmediate(pump);
            else res.once('drain', pump);
          } else {
            const piece = Math.floor((left - 64 * 1024) / 4);
            if (piece >= 4096) send(piece);
            setTimeout(pump, 20);
          }
        };
        pump();
        release = () => res.destroy();
        req.on('close', () => (closed = true));
      }),
    );
    server = await startServer({
      dataDir,
      env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: `${publisher.base}/asn-ipv4.csv|${publisher.base}/asn-ipv6.csv`, SPLITGUARD_IPDB_FETCH_TIMEOUT_MS: '8000' },
    });
    const s = server;
    const before = await databaseStatus(s);
    expect((await triggerRefresh(s, s.apiKey)).status).toBe(202);
    // The download stopped (the publisher's connection closed), or the volume is full.
    await waitUntil(async () => closed || statfsSync(dataDir).bavail * statfsSync(dataDir).bsize < 2 ** 20, (done) => done, 20_000, 50);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await api(s, 'POST', '/v1/routes', big(i))).status);
    expect(statuses.filter((c) => c !== 201)).toEqual([]);
    release();
    const done = await refreshFinished(s, before.last_refresh?.finished_at ?? null);
    expect(done.last_refresh?.outcome).toBe('failed');
    expect(done.last_refresh?.nodes[0].error).toMatch(/the data directory's file system would keep under 32 MiB free/);
  }, 90_000);
});
