// Organization names of a few KB from a publisher (1-3.5 KB each made an
// 840 MB database in the hostile-publisher review) are cut to 256 UTF-16
// code units when the source is read, never between the halves of a
// surrogate pair: a 3 KB name serves as its first 256 characters, and one
// whose 256th code unit opens an emoji as its first 255. Names of the real
// data (the longest is 167 characters) are untouched.
import { expect, it } from 'vitest';
import { check, refreshNow } from '../../helpers/refresh.js';
import { rewrittenPackageFile, usePublishedAsnData } from '../../helpers/sources.js';

/** 3,072 characters: "Org <line> " then letters. */
const long = (i: number) => `Org ${i} `.padEnd(3072, 'abcdefghij');
/** 255 letters, then an emoji (two code units) across the cut, then more. */
const SPLIT = `${'y'.repeat(255)}\u{1F600}${'z'.repeat(2000)}`;

// Lines 0 and 1: 1.0.0.0/24 (Cloudflare) and 1.0.4.0/22 (Gtelecom); the next 2,000 lines get 3 KB names too.
const ctx = usePublishedAsnData(() => rewrittenPackageFile('asn-ipv4.csv', (l, i) => (i === 1 ? { ...l, org: SPLIT } : i <= 2001 ? { ...l, org: long(i) } : l)));

it('cuts organization names to 256 characters at a character boundary', async () => {
  const after = await refreshNow(ctx.server, ctx.server.apiKey);
  expect(after.last_refresh).toMatchObject({ outcome: 'updated', error: null });

  expect(await check(ctx.server, '1.0.0.1')).toMatchObject({ asn: 13335, organization: long(0).slice(0, 256) });
  expect(await check(ctx.server, '1.0.4.1')).toMatchObject({ asn: 38803, organization: 'y'.repeat(255) });
  // A name of the real data, as published.
  expect(await check(ctx.server, '8.8.8.8')).toMatchObject({ asn: 15169, organization: 'Google LLC', database: { version: after.version } });
}, 120_000);
