// A publisher whose IPv4 data shrinks every range to its first address but
// those of the well-known addresses' owners: as many ranges as before (more,
// with the gaps), every ASN where it was, but nearly all of the space
// unannounced, so ASN-based detection would judge it by nothing. The range
// count was the only bound on withdrawn space. Now it is refused because it
// leaves more than 10% of the serving database's announced IPv4 space
// unannounced (between published versions 14 months apart, 1.5% was),
// naming the share, and the database that was serving keeps serving.
import { it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

/** The owners of the well-known IPv4 addresses (ipdb/candidate.ts): their ranges stay as published. */
const KEPT = new Set([15169, 13335, 19281, 36692]);

const ctx = usePublishedAsnData(() => rewrittenPackageFile('asn-ipv4.csv', (l) => (KEPT.has(l.asn) ? l : { ...l, end: l.start })));

it('refuses ASN data that leaves most of the announced IPv4 space unannounced and keeps the current database serving', async () => {
  await expectFailedRefreshKeepsServing(
    ctx.server,
    ctx.locations[0],
    /^the new database was refused: it leaves [0-9]+ of the serving database's [0-9]+ announced IPv4 addresses \((9[0-9]|100)\.[0-9]%\) unannounced, more than 10%$/,
  );
}, 120_000);
