// Text feeds end their lines with LF, CR LF or a lone CR. Split on LF only, a
// list written with CR ends was one line, and its first entry all that was
// kept, reported as a good download (the files review of 2026-11-27). A line
// longer than 1,024 characters is malformed, never split.
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

const cidrs = Array.from({ length: 200 }, (_, i) => `20.${i}.0.0/16`);

it.each([
  ['LF', '\n'],
  ['CR LF', '\r\n'],
  ['CR', '\r'],
])('reads every entry of a cidr-lines list with %s line ends', (_name, end) => {
  expect(parseFeed('cidr-lines', Buffer.from(cidrs.join(end)), 'openai').ranges!.v4).toHaveLength(200);
});

it('reads every entry of a geofeed and of an ASN list with CR line ends', () => {
  expect(parseFeed('geofeed-csv', Buffer.from(cidrs.map((c) => `${c},US,,,`).join('\r')), 'relay').ranges!.v4).toHaveLength(200);
  const asns = parseFeed('asn-lines', Buffer.from(Array.from({ length: 200 }, (_, i) => `AS${i + 1} # Org ${i}`).join('\r')), 'x4b');
  expect(asns.asns).toHaveLength(200);
  expect(asns.asnNames!.get(7)).toBe('Org 6');
});

it('counts a line of more than 1,024 characters as malformed without splitting it', () => {
  const long = `${'1.2.3.4,'.repeat(200)}`;
  const parsed = parseFeed('cidr-lines', Buffer.from([...cidrs, long, ...cidrs.map((c) => c.replace('20.', '21.'))].join('\n')), 'openai');
  expect(parsed.malformed).toBe(1);
  expect(parsed.examples[0]).toMatch(/^a line of 1600 characters/);
  expect(parsed.ranges!.v4).toHaveLength(400);
});
