// A publisher whose IPv6 data gives every range to Amazon (AS16509) but
// those of Google and Cloudflare, which hold the well-known IPv6 resolvers
// (2001:4860:4860::8888, 2606:4700:4700::1111): the published ranges stay
// apart, so the candidate keeps most of the serving database's IPv6 ranges,
// and its IPv4 data is the package's. Only IPv4 space was compared, so every
// IPv6 visitor became Amazon's. Now it is refused because it gives more
// than a quarter of the serving database's announced IPv6 space (counted in
// /64s) to other ASNs, naming the share, and the database that was serving
// keeps serving.
import { it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

/** The owners of the well-known IPv6 addresses (ipdb/candidate.ts): their ranges stay as published. */
const KEPT = new Set([15169, 13335]);

const ctx = usePublishedAsnData(
  () => rewrittenPackageFile('asn-ipv4.csv', (l) => l),
  { v6: () => rewrittenPackageFile('asn-ipv6.csv', (l) => (KEPT.has(l.asn) ? l : { ...l, asn: 16509, org: '"Amazon.com, Inc."' })) },
);

it('refuses IPv6 data that moves most of the announced IPv6 space and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(
    ctx.server,
    ctx.locations[0],
    /^the new database was refused: it gives [0-9]+ of the serving database's [0-9]+ announced IPv6 \/64 blocks \((9[0-9]|100)\.[0-9]%\) to other ASNs, more than 25%$/,
  );
}, 120_000);
