// The valid fixture opens and answers lookups as its CSV says. This is what
// gives the corruption tests their meaning: a reader that refused everything
// would pass those and fail here.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseIp, parseIPv4 } from '../../src/ipdb/address.js';
import { IpDatabase } from '../../src/ipdb/database.js';
import { FORMAT_VERSION } from '../../src/ipdb/format.js';
import { binding } from '../../src/ipdb/native.js';
import { buildFixture, FIXTURE_SOURCE, FIXTURE_VERSION, removeTemps, writeTemp } from '../helpers/fixture.js';

let db: IpDatabase;

beforeAll(() => {
  db = IpDatabase.open(writeTemp(buildFixture()), { verifyChecksum: true });
});

afterAll(() => {
  db.close();
  removeTemps();
});

// [address, asn or null for "no data", organization]. Written from the CSV in
// test/helpers/fixture.ts by hand, at range edges where there are any.
const expected: [string, number | null, string?][] = [
  ['1.0.0.0', 13335, 'Cloudflare'],
  ['1.0.0.255', 13335, 'Cloudflare'],
  ['1.0.1.0', null],
  ['8.8.8.8', 15169, 'Google LLC'],
  ['10.20.0.0', 64500, 'Alpha Net'],
  ['10.20.63.255', 64500, 'Alpha Net'],
  ['10.20.64.0', 64501, 'Beta Hosting'],
  ['10.20.64.255', 64501, 'Beta Hosting'],
  ['10.20.65.0', 64500, 'Alpha Net'],
  ['10.20.128.0', 64502, 'Société Exemple'],
  ['10.20.255.255', 64502, 'Société Exemple'],
  ['10.21.0.0', null],
  ['100.63.255.255', null],
  ['100.64.0.0', 64503, 'Shared Space'],
  ['100.127.255.255', 64503, 'Shared Space'],
  ['100.128.0.0', null],
  ['172.16.0.0', 64520, 'Wide 0'],
  ['172.16.10.7', 64522, 'Wide 2'],
  ['172.16.11.7', null],
  ['172.16.78.255', 64520, 'Wide 0'],
  ['172.16.79.0', null],
  ['::ffff:8.8.8.8', 15169, 'Google LLC'],
  ['::', null],
  ['2001:db8::', 64510, 'Documentation Six'],
  ['2001:db8:0:ffff:ffff:ffff:ffff:ffff', 64510, 'Documentation Six'],
  ['2001:db8:1::', 64511, 'Nested Forty-Eight'],
  ['2001:db8:1::1', 64512, 'Single Host'],
  ['2001:db8:1::2', 64511, 'Nested Forty-Eight'],
  ['2001:db8:1:ffff:ffff:ffff:ffff:ffff', 64511, 'Nested Forty-Eight'],
  ['2001:db8:2::', 64510, 'Documentation Six'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 64510, 'Documentation Six'],
  ['2001:db9::', null],
  ['2a00:1450::', 15169, 'Google LLC'],
  ['2a00:1450:4001::5', 15169, 'Google Ireland, Ltd.'],
  ['2a00:1450:4002::', 15169, 'Google LLC'],
  ['2a00:1451::', null],
];

it('opens with the format version, source name and data version it was built with', () => {
  // The builder (format.ts) and the reader (trie_format.h) name one version.
  expect(db.info.formatVersion).toBe(FORMAT_VERSION);
  expect(binding.formatVersion).toBe(FORMAT_VERSION);
  expect(db.info.source).toBe(FIXTURE_SOURCE);
  expect(db.info.version).toBe(FIXTURE_VERSION);
  expect(db.info.builtAt).toBe(new Date(0).toISOString());
});

it.each(expected)('%s -> AS %s', (ip, asn, org) => {
  const r = db.describe(ip)!;
  expect(r.found).toBe(asn !== null);
  expect(r.asn).toBe(asn);
  expect(r.organization).toBe(org ?? null);
  // The native walk (trie_reader.cc) agrees with the JavaScript walk.
  const a = new Uint8Array(16);
  parseIp(ip, a);
  expect(db.lookupNative(a)).toBe(db.lookupBytes(a));
});

it('reports the range of a /128 and of a split IPv4 block exactly', () => {
  expect(db.describe('2001:db8:1::1')!.range).toEqual({ start: '2001:db8:1::1', end: '2001:db8:1::1' });
  expect(db.describe('10.20.64.9')!.range).toEqual({ start: '10.20.64.0', end: '10.20.64.255' });
});

it('the native batch walk agrees with the JavaScript walk on every /26 of the node-holding /16s', () => {
  const ips: number[] = [];
  for (const base of ['1.0.0.0', '8.8.0.0', '10.20.0.0', '172.16.0.0']) {
    for (let i = 0; i < 1024; i++) ips.push(parseIPv4(base) + i * 64);
  }
  const batch = db.lookupBatch4(Uint32Array.from(ips));
  expect(Array.from(batch)).toEqual(ips.map((ip) => db.lookup4(ip)));
  expect(new Set(batch).size).toBeGreaterThan(5);
});
