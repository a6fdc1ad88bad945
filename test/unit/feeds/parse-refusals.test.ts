// A feed file that is not what its format says is refused by name: an HTML
// page served in place of a list, JSON of another shape, a list with too
// many malformed entries. A few malformed entries in a large file are
// skipped and counted.
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

const bytes = (s: string) => new TextEncoder().encode(s);

it.each([
  ['cidr-lines', '<!doctype html><html><body>Rate limited</body></html>\n', /1 of 1 entries are malformed \(e.g. “<!doctype/],
  ['cidr-lines', '# only comments\n\n', /holds no address range in the cidr-lines format/],
  ['aws-json', '<html>', /is not valid JSON/],
  ['google-json', '[1, 2]', /is not a JSON object/],
  ['google-json', JSON.stringify({ prefixes: [{ prefix: '1.2.3.0/24' }] }), /1 of 1 entries are malformed/],
  ['asn-lines', 'AS16509\nnot an asn\n', /1 of 2 entries are malformed/],
  ['cidr-lines', '1.2.3.0/33\n', /malformed/],
] as const)('%s: %j is refused', (format, text, why) => {
  expect(() => parseFeed(format, bytes(text), 'feed.txt')).toThrow(why);
  try {
    parseFeed(format, bytes(text), 'feed.txt');
  } catch (err) {
    expect(err).toMatchObject({ code: 'feed_invalid' });
  }
});

it('skips and counts a few malformed entries in a large file', () => {
  const lines = Array.from({ length: 500 }, (_, i) => `11.${i >> 8}.${i & 255}.0/24`);
  lines.splice(100, 0, 'garbage', '300.1.1.1');
  const parsed = parseFeed('cidr-lines', bytes(lines.join('\n')), 'big.txt');
  expect(parsed.ranges!.v4).toHaveLength(500);
  expect(parsed.malformed).toBe(2);
  expect(parsed.examples).toEqual(['garbage', '300.1.1.1']);
});

it('refuses ranges wider than /8 or /16, and leaves special-purpose space out', () => {
  const lines = ['0.0.0.0/0', ...Array.from({ length: 200 }, (_, i) => `11.${i}.0.0/16`)].join('\n');
  expect(() => parseFeed('cidr-lines', bytes(lines), 'wide.txt')).not.toThrow();
  expect(parseFeed('cidr-lines', bytes(lines), 'wide.txt')).toMatchObject({ malformed: 1, examples: ['0.0.0.0/0'] });
  const special = parseFeed('cidr-lines', bytes('10.1.0.0/16\n192.168.1.1\n2001:db8::/32\n198.51.100.0/24\n8.8.8.0/24\n'), 'special.txt');
  expect(special).toMatchObject({ special: 4, malformed: 0 });
  expect(special.ranges!.v4).toHaveLength(1);
  expect(special.ranges!.v6).toHaveLength(0);
});

it('takes an entry with host bits past a wide prefix for a typo, not for the wide block', () => {
  // 193.138.218.16/8 is a /28 with a digit lost: read as 193.0.0.0/8 it made every visitor in 193/8 a VPN exit.
  const good = Array.from({ length: 200 }, (_, i) => `185.${i}.1.0/24`);
  const parsed = parseFeed('cidr-lines', bytes([...good, '193.138.218.16/8', '2a03:1b20:1:f410::/24', '1.2.3.4/24', '2a03:1b20:1:f410::1/64'].join('\n')), 'typo.txt');
  expect(parsed).toMatchObject({ malformed: 2, examples: ['193.138.218.16/8', '2a03:1b20:1:f410::/24'] });
  // Host bits under a narrow prefix are the block, as routers read it.
  expect(parsed.ranges!.v4).toContainEqual([0x01020300n, 0x010203ffn]);
  expect(parsed.ranges!.v6).toHaveLength(1);
});

it('counts a range written as "start - end", "address /n" or "address<tab>n" in a cidr-lines file as malformed, not as one address', () => {
  const good = Array.from({ length: 500 }, (_, i) => `185.${i >> 8}.${i & 255}.0/24`);
  const parsed = parseFeed('cidr-lines', bytes([...good, '1.1.1.0 - 1.1.1.255', '1.1.2.0 /24', '1.1.3.0\t24', '1.1.4.0 1.1.4.255', '1.1.5.0/24 AS13335 example'].join('\n')), 'ranges.txt');
  expect(parsed.malformed).toBe(4);
  expect(parsed.ranges!.v4).toHaveLength(501);
  expect(parsed.ranges!.v4).toContainEqual([0x01010500n, 0x010105ffn]);
});

it('leaves 6to4 (2002::/16) and Teredo (2001::/32) out as special-purpose space: relays to real people', () => {
  const parsed = parseFeed('cidr-lines', bytes('2002::/16\n2001::/32\n2001:19f0::/32\n'), 'vultr-ipv6.txt');
  expect(parsed).toMatchObject({ special: 2, malformed: 0 });
  expect(parsed.ranges!.v6).toHaveLength(1);
});

it('refuses an aws-json file without one of its two lists (a renamed key dropped every IPv6 range)', () => {
  expect(() => parseFeed('aws-json', bytes(JSON.stringify({ syncToken: '1', prefixes: [{ ip_prefix: '3.5.0.0/16' }], ipv6Prefixes: [] })), 'aws.json')).toThrow(/has no "ipv6_prefixes" array/);
});

it('reads both prefixes of a google-json entry that carries two', () => {
  const parsed = parseFeed('google-json', bytes(JSON.stringify({ prefixes: [{ ipv4Prefix: '8.8.8.0/24', ipv6Prefix: '2001:4860::/32' }] })), 'goog.json');
  expect(parsed.ranges!.v4).toHaveLength(1);
  expect(parsed.ranges!.v6).toHaveLength(1);
});
