// The growth rule (limits.ts) measures a download against the smallest cover
// the feed's data had in the last week, not only against the last one: a list
// grown 4 times at each of Tor's hourly refreshes would otherwise cover the
// internet by evening. Past the week an old cover no longer counts. Below a
// floor growth is not counted: a /16 for a range list, 4,096 addresses for a
// list of single addresses.
import { expect, it } from 'vitest';
import { type CoverRecord, coversAfter, growthError } from '../../../src/ipdb/feeds/limits.js';
import { FEEDS } from '../../../src/ipdb/feeds/registry.js';

const tor = FEEDS.find((f) => f.name === 'tor')!;
const NOW = Date.parse('2026-11-29T12:00:00Z');
const HOUR = 3_600_000;
const v4 = (n: number) => ({ v4: BigInt(n), v6: 0n });

it('counts the smallest cover of the week, and only of the week', () => {
  let records: CoverRecord[] = [];
  records = coversAfter(records, v4(50_000), NOW - 2 * HOUR);
  records = coversAfter(records, v4(200_000), NOW - HOUR);
  // 4 times the last (200,000) but 16 times the week's smallest (50,000).
  expect(growthError(tor, v4(800_000), v4(200_000), records, null, NOW)).toContain('more than 4 times the 50000');
  expect(growthError(tor, v4(200_000), v4(200_000), records, null, NOW)).toBeNull();
  // Eight days on, the 50,000 has left the week.
  const later = NOW + 8 * 24 * HOUR;
  records = coversAfter(records, v4(200_000), later - HOUR);
  expect(records.map((r) => r.v4)).toEqual(['200000']);
  expect(growthError(tor, v4(800_000), v4(200_000), records, null, later)).toBeNull();
});

it('lets a small range list grow up to a /16, a list of single addresses up to 4,096', () => {
  const openai = FEEDS.find((f) => f.name === 'openai')!;
  expect(growthError(openai, v4(65_536), v4(20), [], null, NOW)).toBeNull();
  expect(growthError(openai, v4(65_537), v4(20), [], null, NOW)).toContain('(65536 allowed)');
  expect(growthError(tor, v4(4096), v4(20), [], null, NOW)).toBeNull();
  expect(growthError(tor, v4(4097), v4(20), [], null, NOW)).toContain('(4096 allowed)');
  const six = { v4: 0n, v6: 4097n };
  expect(growthError(tor, six, { v4: 0n, v6: 20n }, [], null, NOW)).toContain('covers 4097 IPv6 addresses');
});

it('names the addresses only the memory holds', () => {
  // 1,000 downloaded and 7,000 remembered, against a week whose smallest was 1,651.
  const error = growthError(tor, v4(8000), v4(1651), [], null, NOW, v4(1000));
  expect(error).toContain('covers 8000 IPv4 addresses with the 7000 only its memory of the last 7 days holds, more than 4 times the 1651');
  expect(growthError(tor, v4(6604), v4(1651), [], null, NOW, v4(1000))).toBeNull();
});
