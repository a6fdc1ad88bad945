// ASN data that makes a database far larger than the serving one is refused
// before it is written: every swap validates the whole file while the
// threads wait (the hostile-publisher review's 840 MB stalled each of them
// 1.1 s). Here each IPv4 range gets a name of its own, 256 characters (the
// cap), about 125 MB against the serving 16 MB: more than twice its size and
// past the 64 MiB floor. The refusal names both sizes; the database that was
// serving keeps serving.
import { it } from 'vitest';
import { expectFailedRefreshKeepsServing } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

// About 120 MB of CSV, 5 MB gzipped.
const ctx = usePublishedAsnData(() => rewrittenPackageFile('asn-ipv4.csv', (l, i) => ({ ...l, org: `Organization ${i} `.padEnd(256, 'x') })), { gzip: true });

it('refuses a database more than twice the serving one and keeps the current one serving', async () => {
  await expectFailedRefreshKeepsServing(
    ctx.server,
    ctx.locations[0],
    /^the new database was refused: it is 1[0-9]{8} bytes, more than 2 times the serving database's 1[0-9]{7} \(at most 67108864\)$/,
  );
}, 120_000);
