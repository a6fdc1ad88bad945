// mappedIPv4 (src/ipdb/address.ts), the one test for ::ffff:0:0/96 that the
// client address, the per-address limits and the database lookup share:
// every one of bytes 0-9 must be zero, and 10-11 must be ff ff.
import { expect, it } from 'vitest';
import { mappedIPv4 } from '../../src/ipdb/address.js';

const mapped = () => Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 7);

it('reads the IPv4 address of ::ffff:a.b.c.d', () => {
  expect(mappedIPv4(mapped())).toBe(0xc6336407);
});

it('is -1 when any of bytes 0-11 differs from ::ffff:0:0/96', () => {
  for (let i = 0; i < 12; i++) {
    for (const v of [1, 0x80, 0xfe]) {
      const a = mapped();
      a[i] = i < 10 ? v : a[i] ^ v;
      expect(mappedIPv4(a), `byte ${i} = ${a[i]}`).toBe(-1);
    }
  }
});
