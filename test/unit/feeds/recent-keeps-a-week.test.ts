// A feed with keepDays remembers the addresses its earlier data held: after a
// download, those the new data lacks are kept with the time they were last
// seen, until keepDays have passed since; an address that comes back leaves
// the recent file (the download holds it again). Lines of a recent file that
// cannot be read are skipped, and ranges survive the trip through its text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cidrRange, parseFeed } from '../../../src/ipdb/feeds/parse.js';
import { rangeCidr, recentAfter } from '../../../src/ipdb/feeds/recent.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-recent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
let n = 0;
const file = (text: string) => {
  const f = path.join(dir, `f${n++}`);
  writeFileSync(f, text);
  return f;
};
const ranges = (...addrs: string[]) => parseFeed('cidr-lines', new TextEncoder().encode(addrs.join('\n')), 'test').ranges!;
/** The recent file's entries as "cidr time" pairs. */
const entries = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

it('keeps what the previous download had and the new one lacks, seen when the previous one was last confirmed', () => {
  const previous = { files: [file('185.220.101.1\n185.220.101.2\n2a0b:f4c2::1\n')], format: 'cidr-lines' as const, seenAt: T0, recent: null };
  const out = recentAfter(previous, ranges('185.220.101.2'), T0 + DAY, 7, 'tor');
  expect(entries(out.text).sort()).toEqual([
    `185.220.101.1/32 ${new Date(T0).toISOString()}`,
    `2a0b:f4c2:0:0:0:0:0:1/128 ${new Date(T0).toISOString()}`,
  ]);
  expect(out.entries).toBe(2);
});

it('carries the previous recent file forward, drops what is older than keepDays, and lets returning addresses go', () => {
  const recent = file([
    '# header',
    `185.220.101.3/32 ${new Date(T0 - 8 * DAY).toISOString()}`, // older than a week at T0
    `185.220.101.4/32 ${new Date(T0 - 2 * DAY).toISOString()}`,
    `185.220.101.5/32 ${new Date(T0 - 1 * DAY).toISOString()}`, // back in the new download
    'not-an-address 2026-11-01T00:00:00Z',
    '185.220.101.6/32 yesterday',
  ].join('\n'));
  const previous = { files: [file('185.220.101.4\n')], format: 'cidr-lines' as const, seenAt: T0, recent };
  const out = recentAfter(previous, ranges('185.220.101.5'), T0, 7, 'tor');
  // .4 was seen later in the previous download than its recent line says.
  expect(entries(out.text)).toEqual([`185.220.101.4/32 ${new Date(T0).toISOString()}`]);
});

it('forgets everything once keepDays have passed without a sighting', () => {
  const previous = { files: [file('185.220.101.1\n')], format: 'cidr-lines' as const, seenAt: T0, recent: null };
  expect(recentAfter(previous, ranges('185.220.101.2'), T0 + 7 * DAY, 7, 'tor').entries).toBe(1);
  expect(recentAfter(previous, ranges('185.220.101.2'), T0 + 7 * DAY + 1, 7, 'tor')).toMatchObject({ entries: 0 });
});

it.each(['185.220.100.0/22', '1.2.3.4/32', '2001:67c:e60::/48', '2a0b:f4c2:2::1/128', '::ffff:0:0/96'])('writes %s as a CIDR that reads back as the same range', (cidr) => {
  const r = cidrRange(cidr)!;
  const back = cidrRange(rangeCidr(r.family, r.start, r.end))!;
  expect([back.family, back.start, back.end]).toEqual([r.family, r.start, r.end]);
});
