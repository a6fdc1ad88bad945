// Every feed format reads its publisher's shape: the ranges (or ASNs) come
// out as inclusive ranges per family, host bits cleared, comments and blank
// lines skipped, and the publisher's version when the format has one.
import { expect, it } from 'vitest';
import { parseFeed, type FeedFormat } from '../../../src/ipdb/feeds/parse.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const v4 = (a: string, b: string) => {
  const n = (t: string) => t.split('.').reduce((acc, x) => acc * 256 + Number(x), 0);
  return [BigInt(n(a)), BigInt(n(b))];
};

const cases: [FeedFormat, string, { v4: bigint[][]; v6Count: number; version: string | null }][] = [
  [
    'aws-json',
    JSON.stringify({
      syncToken: '1700000000',
      createDate: '2026-11-20-10-00-00',
      prefixes: [{ ip_prefix: '3.5.140.0/22', region: 'ap-northeast-2', service: 'AMAZON', network_border_group: 'ap-northeast-2' }],
      ipv6_prefixes: [{ ipv6_prefix: '2600:1f00::/24', region: 'us-east-1', service: 'AMAZON', network_border_group: 'us-east-1' }],
    }),
    { v4: [v4('3.5.140.0', '3.5.143.255')], v6Count: 1, version: '1700000000' },
  ],
  [
    'google-json',
    JSON.stringify({ syncToken: '1763', creationTime: '2026-11-20T10:00:00.000000', prefixes: [{ ipv4Prefix: '66.249.64.0/27' }, { ipv6Prefix: '2001:4860:4801:10::/64' }] }),
    { v4: [v4('66.249.64.0', '66.249.64.31')], v6Count: 1, version: '1763' },
  ],
  [
    'oracle-json',
    JSON.stringify({ last_updated_timestamp: '2026-11-19T22:01:03.588Z', regions: [{ region: 'us-ashburn-1', cidrs: [{ cidr: '129.213.0.128/25', tags: ['OCI'] }] }] }),
    { v4: [v4('129.213.0.128', '129.213.0.255')], v6Count: 0, version: '2026-11-19T22:01:03.588Z' },
  ],
  [
    'azure-json',
    JSON.stringify({
      changeNumber: 362,
      cloud: 'Public',
      values: [
        { name: 'ActionGroup', id: 'ActionGroup', properties: { addressPrefixes: ['10.0.0.0/8'] } },
        { name: 'AzureCloud', id: 'AzureCloud', properties: { changeNumber: 339, addressPrefixes: ['4.144.0.0/17', '2603:1000::/40'] } },
      ],
    }),
    { v4: [v4('4.144.0.0', '4.144.127.255')], v6Count: 1, version: '362' },
  ],
  ['cidr-lines', '# Tor exits\n185.220.101.1\n\n185.220.101.0/25 # a comment\n2a0b:f4c2::1\n', { v4: [v4('185.220.101.1', '185.220.101.1'), v4('185.220.101.0', '185.220.101.127')], v6Count: 1, version: null }],
  ['cidr-lines', '1.2.3.4/24\n', { v4: [v4('1.2.3.0', '1.2.3.255')], v6Count: 0, version: null }],
  ['geofeed-csv', '# DigitalOcean geofeed\n5.101.96.0/21,NL,NL-NH,Amsterdam,\n2a03:b0c0::/32,NL,NL-NH,Amsterdam,\n', { v4: [v4('5.101.96.0', '5.101.103.255')], v6Count: 1, version: null }],
];

it.each(cases)('%s', (format, text, expected) => {
  const parsed = parseFeed(format, bytes(text), `test.${format}`);
  expect(parsed.ranges!.v4).toEqual(expected.v4);
  expect(parsed.ranges!.v6).toHaveLength(expected.v6Count);
  expect(parsed.version).toBe(expected.version);
  expect(parsed.malformed).toBe(0);
});

it('reads ASN lists in both shapes', () => {
  expect(parseFeed('asn-lines', bytes('AS16509 # Amazon\n14061\n# comment\nAS24940 Hetzner\n'), 'x').asns).toEqual([16509, 14061, 24940]);
  expect(parseFeed('asn-csv', bytes('ASN,Entity\n16509,"Amazon.com, Inc."\n 51447, "RootLayer Web Services Ltd."\n'), 'x').asns).toEqual([16509, 51447]);
});
