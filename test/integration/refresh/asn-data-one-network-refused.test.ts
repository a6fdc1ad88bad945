// A publisher whose ASN data gives every range to Amazon (AS16509 and
// AS14618 in turn, over the real ranges, as the hostile-publisher review
// served it) made every address Amazon's, 8.8.8.8 included: the old check
// only asked that the well-known addresses resolve. Each well-known address
// must now belong to its known owner: the source is refused, naming the
// address and both ASNs, and the next source is installed.
import { expect, it } from 'vitest';
import { check, refreshNow, sourceName } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

const ctx = usePublishedAsnData(() => rewrittenPackageFile('asn-ipv4.csv', (l, i) => ({ ...l, asn: i % 2 === 0 ? 16509 : 14618, org: '"Amazon.com, Inc."' })), { fallback: true });

it('refuses ASN data that gives a well-known address to another network, and installs the next source', async () => {
  const after = await refreshNow(ctx.server, ctx.server.apiKey);
  const record = after.last_refresh!;
  expect(record).toMatchObject({ outcome: 'updated', source: sourceName(ctx.locations[1]), error: null });
  expect(record.nodes.map((n) => [n.source, n.outcome])).toEqual([
    [sourceName(ctx.locations[0]), 'failed'],
    [sourceName(ctx.locations[1]), 'updated'],
  ]);
  expect(record.nodes[0].error).toMatch(/^the new database was refused: it gives 8\.8\.8\.8 to AS(16509|14618), not to AS15169$/);
  expect(await check(ctx.server, '8.8.8.8')).toMatchObject({ found: true, asn: 15169, database: { version: after.version } });
}, 120_000);
