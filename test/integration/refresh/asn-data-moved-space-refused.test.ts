// A publisher that leaves the well-known addresses with their owners and
// gives the rest of the address space to Amazon (AS16509 and AS14618 in
// turn, so that the ranges stay apart and as many as the serving one's):
// its ASN data is refused because it gives more than a quarter of the
// serving database's announced IPv4 space to other ASNs (here nearly all of
// it; two published versions of the package 14 months apart move 4%),
// naming the share, and the database that was serving keeps serving.
import { it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

/** The owners of the well-known addresses (ipdb/candidate.ts): their ranges stay as published. */
const KEPT = new Set([15169, 13335, 19281, 36692]);

const ctx = usePublishedAsnData(() => rewrittenPackageFile('asn-ipv4.csv', (l, i) => (KEPT.has(l.asn) ? l : { ...l, asn: i % 2 === 0 ? 16509 : 14618, org: '"Amazon.com, Inc."' })));

it('refuses ASN data that moves most of the announced IPv4 space and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(
    ctx.server,
    ctx.locations[0],
    /^the new database was refused: it gives [0-9]+ of the serving database's [0-9]+ announced IPv4 addresses \((9[0-9]|100)\.[0-9]%\) to other ASNs, more than 25%$/,
  );
}, 120_000);
