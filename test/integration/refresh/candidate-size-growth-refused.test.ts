// ASN data that makes a database far larger than the serving one is refused
// before it is written: every swap validates the whole file while the
// threads wait (the hostile-publisher review's 840 MB stalled each of them
// 1.1 s). Here each IPv4 range gets a name of its own, 256 characters (the
// cap), about 125 MB against the serving 16 MB: more than twice its size and
// past the 64 MiB floor. The refusal names both sizes; the database that was
// serving keeps serving.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, it } from 'vitest';
import { type FeedServer, startFeedServer } from '../../helpers/feed-server.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { rewrittenPackageFile } from '../../helpers/sources.js';

let publisher: FeedServer;
let server: TestServer;
let location: string;
beforeAll(async () => {
  publisher = await startFeedServer();
  // About 120 MB of CSV, 5 MB gzipped.
  const v4 = rewrittenPackageFile('asn-ipv4.csv', (l, i) => ({ ...l, org: `Organization ${i} `.padEnd(256, 'x') }));
  publisher.routes.set('/asn-ipv4.csv.gz', { body: gzipSync(v4) });
  publisher.routes.set('/asn-ipv6.csv', { body: readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', 'asn-ipv6.csv')) });
  location = `${publisher.url('/asn-ipv4.csv.gz')}|${publisher.url('/asn-ipv6.csv')}`;
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: location } });
});
afterAll(async () => {
  await server?.close();
  await publisher?.close();
});

it('refuses a database more than twice the serving one and keeps the current one serving', async () => {
  await expectFailedRefreshKeepsServing(
    server,
    location,
    /^the new database was refused: it is 1[0-9]{8} bytes, more than 2 times the serving database's 1[0-9]{7} \(at most 67108864\)$/,
  );
}, 120_000);
