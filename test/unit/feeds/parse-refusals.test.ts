// A feed file that is not what its format says is refused by name: an HTML
// page served in place of a list, JSON of another shape, a list with too
// many malformed entries. A few malformed entries in a large file are
// skipped and counted.
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

const bytes = (s: string) => new TextEncoder().encode(s);

it.each([
  ['cidr-lines', '<!doctype html><html><body>Rate limited</body></html>\n', /1 of 1 entries are malformed \(e.g. "<!doctype/],
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
  const lines = Array.from({ length: 500 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
  lines.splice(100, 0, 'garbage', '300.1.1.1');
  const parsed = parseFeed('cidr-lines', bytes(lines.join('\n')), 'big.txt');
  expect(parsed.ranges!.v4).toHaveLength(500);
  expect(parsed.malformed).toBe(2);
  expect(parsed.examples).toEqual(['garbage', '300.1.1.1']);
});
