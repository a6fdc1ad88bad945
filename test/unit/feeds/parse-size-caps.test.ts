// A feed file is refused past its size caps, before it can fill the heap of
// the thread that parses it (the refresh's main thread): a gzip body that
// decompresses past 64 MiB (a bomb of under 100 KB), and a list of more than
// 1,000,000 entries (ten times AWS's, the longest list shipped). A list at
// the entry cap is read.
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

const MiB = 1024 * 1024;
/** `n` distinct addresses, one a line. */
const addresses = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join('\n'));

it('refuses a gzip body that decompresses past 64 MiB', () => {
  const member = gzipSync(Buffer.from('1.2.3.4\n'.repeat(MiB / 8)), { level: 9 });
  const bomb = Buffer.concat(Array(65).fill(member));
  expect(bomb.length).toBeLessThan(100 * 1024);
  expect(() => parseFeed('cidr-lines', bomb, 'tor (bomb)')).toThrow(/tor \(bomb\) decompresses to more than 67108864 bytes/);
});

it('refuses a list of more than 1,000,000 entries, naming the file', () => {
  expect(() => parseFeed('cidr-lines', addresses(1_000_001), 'huge.txt')).toThrow(/huge\.txt holds more than 1000000 entries/);
});

it('reads a list of exactly 1,000,000 entries', () => {
  expect(parseFeed('cidr-lines', addresses(1_000_000), 'cap.txt').ranges!.v4).toHaveLength(1_000_000);
});
