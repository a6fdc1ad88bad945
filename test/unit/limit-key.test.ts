// The key the per-address limits count an address under: an IPv4 address
// (held IPv4-mapped) as it is; an IPv6 address by its /64, so that every
// address of one subscriber's or one server's block shares one count.
import { expect, it } from 'vitest';
import { limitKey } from '../../src/http/client-ip.js';
import { parseIp } from '../../src/ipdb/address.js';

const key = (text: string) => {
  const a = new Uint8Array(16);
  expect(parseIp(text, a), text).not.toBe(0);
  return Buffer.from(limitKey(a)).toString('hex');
};

it('keeps IPv4 addresses apart, one count each', () => {
  expect(key('192.0.2.1')).toBe('00000000000000000000ffffc0000201');
  expect(key('192.0.2.1')).not.toBe(key('192.0.2.2'));
});

it('counts an IPv6 /64 as one, and its neighbour /64 apart', () => {
  expect(key('2001:db8:1:2::1')).toBe(key('2001:db8:1:2:ffff:ffff:ffff:ffff'));
  expect(key('2001:db8:1:2::1')).toBe('20010db8000100020000000000000000');
  expect(key('2001:db8:1:3::1')).not.toBe(key('2001:db8:1:2::1'));
});
