// A refresh's build keeps the data directory's free-space reserve too: the
// candidate is written beside the downloads, which may have taken the file
// system down to the reserve. Here the data directory is a 160 MiB tmpfs
// (reserve 32 MiB), and the publisher's IPv4 file is the package's padded
// with comment lines to leave the reserve and 8 MiB free: the download is
// taken whole, and the build, which may write a candidate of up to 64 MiB,
// is not started; the source fails naming the reserve, its download is gone
// at once, and the free space never falls below the reserve (less the
// download's last 2 MiB check). Before, the build wrote its candidate into
// the reserve, and a publisher with a larger candidate emptied the volume
// (a route creation answered 500 in the review).
import { readFileSync, statfsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotMount, mountTmpfs, unmount } from '../../helpers/faults.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { databaseStatus, refreshFinished, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const skip = cannotMount();
if (skip) console.warn(`skipped: ${skip}`);

const PACKAGE = path.join(ROOT, 'node_modules', '@ip-location-db', 'asn');
const IPV4 = readFileSync(path.join(PACKAGE, 'asn-ipv4.csv'));
const IPV6 = readFileSync(path.join(PACKAGE, 'asn-ipv6.csv'));
const RESERVE = 32 * 2 ** 20;
const free = () => {
  const fs = statfsSync(dataDir);
  return fs.bavail * fs.bsize;
};
const dataDir = tempDataDir();

describe.skipIf(skip !== null)('a refresh near the reserve', () => {
  let server: TestServer | undefined;
  let publisher: Loopback | undefined;
  afterAll(async () => {
    await server?.close();
    await publisher?.close();
    unmount(dataDir);
  });

  it('does not start a build whose candidate could take the reserve', async () => {
    mountTmpfs(dataDir, 160);
    publisher = await listenLoopback(
      http.createServer((req, res) => {
        if (req.url === '/asn-ipv6.csv') return void res.end(IPV6);
        // The package's IPv4 lines, then comment lines up to the reserve and 8 MiB (less the IPv6 file, fetched beside it).
        const length = Math.max(IPV4.length, free() - RESERVE - 8 * 2 ** 20 - IPV6.length);
        const line = Buffer.from(`#${'x'.repeat(1022)}\n`);
        res.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': String(length) });
        res.write(IPV4);
        let left = length - IPV4.length;
        const pump = () => {
          while (left > 0) {
            const piece = left >= line.length ? line : Buffer.from(`#${'x'.repeat(left - 2)}\n`.slice(0, left));
            left -= piece.length;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      }),
    );
    const location = `${publisher.base}/asn-ipv4.csv|${publisher.base}/asn-ipv6.csv`;
    server = await startServer({ dataDir, env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: location } });
    const s = server;
    const before = await databaseStatus(s);
    let lowest = free();
    const watch = setInterval(() => (lowest = Math.min(lowest, free())), 2);
    expect((await triggerRefresh(s, s.apiKey)).status).toBe(202);
    const done = await refreshFinished(s, before.last_refresh?.finished_at ?? null);
    clearInterval(watch);
    expect(done.last_refresh?.outcome).toBe('failed');
    expect(done.last_refresh?.nodes[0].error).toMatch(/^the database build failed: the data directory's file system would keep under 32 MiB free \([0-9]+ MiB free, up to 64 MiB to come\): stopped/);
    expect(lowest).toBeGreaterThan(RESERVE - 4 * 2 ** 20);
  }, 90_000);
});
