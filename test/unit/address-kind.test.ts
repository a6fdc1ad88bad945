// The kinds of address a redirected download may not reach from a host of
// another kind (src/ipdb/address-kind.ts): each internal block at its edges,
// the IPv4-mapped and NAT64 spellings of an IPv4 address, a zone index.
import { expect, it } from 'vitest';
import { addressKind } from '../../src/ipdb/address-kind.js';

it.each([
  ['127.0.0.1', 'loopback'], ['127.255.255.255', 'loopback'], ['::1', 'loopback'],
  ['0.0.0.0', 'unspecified'], ['0.255.255.255', 'unspecified'], ['::', 'unspecified'],
  ['10.0.0.1', 'private'], ['172.16.0.0', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['fc00::1', 'private'], ['fd12:3456::1', 'private'],
  ['100.64.0.0', 'shared'], ['100.127.255.255', 'shared'],
  ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'],
  ['224.0.0.1', 'multicast'], ['239.255.255.255', 'multicast'], ['ff02::1', 'multicast'],
  ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['192.0.2.1', 'reserved'], ['2001:db8::1', 'reserved'], ['::7f00:1', 'reserved'],
  ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:a9fe:a9fe', 'link-local'], ['64:ff9b::10.0.0.1', 'private'], ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['8.8.8.8', 'public'], ['172.32.0.1', 'public'], ['100.128.0.1', 'public'], ['11.0.0.1', 'public'], ['::ffff:8.8.8.8', 'public'], ['64:ff9b::8.8.8.8', 'public'], ['2606:4700::1111', 'public'],
])('%s is %s', (ip, kind) => {
  expect(addressKind(ip)).toBe(kind);
});

it('is null for what is not an address', () => {
  expect(addressKind('localhost')).toBeNull();
  expect(addressKind('[::1]')).toBeNull();
});
