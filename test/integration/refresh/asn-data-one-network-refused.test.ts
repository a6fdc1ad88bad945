// A publisher whose ASN data gives every range to Amazon (AS16509 and
// AS14618 in turn, over the real ranges, as the hostile-publisher review
// served it) made every address Amazon's, 8.8.8.8 included: the old check
// only asked that the well-known addresses resolve. Each well-known address
// must now belong to its known owner: the source is refused, naming the
// address and both ASNs, and the next source is installed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FeedServer, startFeedServer } from '../../helpers/feed-server.js';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { check, refreshNow, sourceName } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { rewrittenPackageFile, type SourceServer, startSourceServer } from '../../helpers/sources.js';

let publisher: FeedServer;
let sources: SourceServer;
let server: TestServer;
let locations: string[];
beforeAll(async () => {
  publisher = await startFeedServer();
  publisher.routes.set('/asn-ipv4.csv', { body: rewrittenPackageFile('asn-ipv4.csv', (l, i) => ({ ...l, asn: i % 2 === 0 ? 16509 : 14618, org: '"Amazon.com, Inc."' })) });
  publisher.routes.set('/asn-ipv6.csv', { body: readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', 'asn-ipv6.csv')) });
  sources = await startSourceServer();
  locations = [`${publisher.url('/asn-ipv4.csv')}|${publisher.url('/asn-ipv6.csv')}`, sources.location('valid')];
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: locations.join(',') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
  await publisher?.close();
});

it('refuses ASN data that gives a well-known address to another network, and installs the next source', async () => {
  const after = await refreshNow(server, server.apiKey);
  const record = after.last_refresh!;
  expect(record).toMatchObject({ outcome: 'updated', source: sourceName(locations[1]), error: null });
  expect(record.nodes.map((n) => [n.source, n.outcome])).toEqual([
    [sourceName(locations[0]), 'failed'],
    [sourceName(locations[1]), 'updated'],
  ]);
  expect(record.nodes[0].error).toMatch(/^the new database was refused: it gives 8\.8\.8\.8 to AS(16509|14618), not to AS15169$/);
  expect(await check(server, '8.8.8.8')).toMatchObject({ found: true, asn: 15169, database: { version: after.version } });
}, 120_000);
