// CIDR text and 128-bit integers (src/ipdb/address.ts), as the configuration
// (TRUST_PROXY, METRICS_FROM) and the range feeds read them: the prefix is
// counted in the family's bits, and anything but 1-3 digits after one slash
// is refused, so that a feed's "1.2.3.0 / 24" or "a - b" is not half read.
import { expect, it } from 'vitest';
import { bytesToBigInt, parseCidrText, parseIp } from '../../src/ipdb/address.js';

const bytes = new Uint8Array(16);
const read = (text: string) => parseCidrText(text, bytes);

it('reads an address as its own block, and a block with its prefix in the family\'s bits', () => {
  expect(read('192.0.2.1')).toEqual({ family: 4, prefix: 32 });
  expect(read('192.0.2.0/24')).toEqual({ family: 4, prefix: 24 });
  expect(read('0.0.0.0/0')).toEqual({ family: 4, prefix: 0 });
  expect(read('2001:db8::')).toEqual({ family: 6, prefix: 128 });
  expect(read('2001:db8::/32')).toEqual({ family: 6, prefix: 32 });
  expect(read('::ffff:192.0.2.0/120')).toEqual({ family: 6, prefix: 120 });
});

it('writes the address as written, host bits included, IPv4 mapped', () => {
  expect(read('192.0.2.77/24')).toEqual({ family: 4, prefix: 24 });
  const expected = new Uint8Array(16);
  parseIp('192.0.2.77', expected);
  expect(bytes).toEqual(expected);
});

it('refuses a prefix out of range, with spaces, a sign or more than three digits, and ranges', () => {
  for (const text of ['192.0.2.0/33', '2001:db8::/129', '192.0.2.0/', '192.0.2.0/ 24', '192.0.2.0 /24', '192.0.2.0/+24', '192.0.2.0/0024', '192.0.2.0/24/8', '192.0.2.0-192.0.2.255', '192.0.2.0 - 192.0.2.255', '', '/24', '192.0.2/24', 'example.com']) {
    expect(read(text), text).toBeNull();
  }
});

it('reads 16 bytes as one 128-bit integer, most significant first', () => {
  const b = new Uint8Array(16);
  expect(bytesToBigInt(b)).toBe(0n);
  parseIp('192.0.2.1', b);
  expect(bytesToBigInt(b)).toBe(0xffff_c000_0201n);
  parseIp('2001:db8::1', b);
  expect(bytesToBigInt(b)).toBe(0x2001_0db8_0000_0000_0000_0000_0000_0001n);
  b.fill(0xff);
  expect(bytesToBigInt(b)).toBe((1n << 128n) - 1n);
});
