// Feeds are folded into the trie at build time: an address in a feed range
// keeps the ASN and organization of the ASN data and gains the feed; the
// narrowest feed range wins; feed space outside the ASN data is a record of
// ASN 0 (not "found"); an ASN feed marks every record of the ASNs it lists.
// The feeds' own facts (name, label, kind, count, version, fetch time) come
// back from the file.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IpDatabase } from '../../src/ipdb/database.js';
import { buildFixture, removeTemps, writeTemp } from '../helpers/fixture.js';

let db: IpDatabase;
beforeAll(() => {
  db = IpDatabase.open(writeTemp(buildFixture()));
});
afterAll(() => {
  db.close();
  removeTemps();
});

const at = (ip: string) => {
  const r = db.lookupText(ip);
  return { asn: db.asn(r), org: db.organization(r), range: db.rangeFeed(r)?.name ?? null, list: db.asnFeed(r)?.name ?? null };
};

it.each([
  ['8.8.8.8', { asn: 15169, org: 'Google LLC', range: 'fixture-tor', list: null }],
  ['8.8.8.9', { asn: 15169, org: 'Google LLC', range: 'fixture-cloud', list: null }],
  ['8.8.8.127', { asn: 15169, org: 'Google LLC', range: 'fixture-cloud', list: null }],
  ['8.8.8.128', { asn: 15169, org: 'Google LLC', range: null, list: null }],
  ['10.20.64.5', { asn: 64501, org: 'Beta Hosting', range: 'fixture-cloud', list: 'fixture-hosting' }],
  ['10.20.65.0', { asn: 64500, org: 'Alpha Net', range: null, list: null }],
  ['172.16.0.1', { asn: 64520, org: 'Wide 0', range: null, list: 'fixture-hosting' }],
  ['2a00:1450:4001::1', { asn: 15169, org: 'Google Ireland, Ltd.', range: 'fixture-cloud', list: null }],
  ['2a00:1450:4001:1::1', { asn: 15169, org: 'Google Ireland, Ltd.', range: null, list: null }],
  ['1.0.0.1', { asn: 13335, org: 'Cloudflare', range: null, list: null }],
])('%s', (ip, expected) => {
  expect(at(ip)).toEqual(expected);
});

it('keeps feed space outside the ASN data as a record of ASN 0, not found', () => {
  expect(at('192.0.2.7')).toEqual({ asn: 0, org: '', range: 'fixture-tor', list: null });
  expect(db.describe('192.0.2.7')).toMatchObject({ found: false, asn: null });
  expect(db.lookupText('192.0.3.1')).toBe(0);
});

it('reads the feeds back from the file', () => {
  expect(db.info.feeds).toEqual([
    { name: 'fixture-cloud', label: 'cloud', kind: 'ranges', version: 'c1', count: 3, fetchedAt: new Date(1_700_000_000_000).toISOString() },
    { name: 'fixture-tor', label: 'tor', kind: 'ranges', version: 't1', count: 2, fetchedAt: new Date(1_700_000_360_000).toISOString() },
    { name: 'fixture-hosting', label: 'hosting', kind: 'asns', version: 'h1', count: 2, fetchedAt: new Date(1_700_000_720_000).toISOString() },
  ]);
});
