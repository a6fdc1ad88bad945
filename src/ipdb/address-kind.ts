// What kind of address a download connects to: public, or one of the
// internal kinds a redirect may not lead to from a host of another kind
// (fetch.ts). The blocks are IANA's special-purpose registries (RFC 6890 and
// successors) that a connection from this host would reach inside its own
// networks or not at all:
//
//   loopback      127.0.0.0/8, ::1
//   unspecified   0.0.0.0/8, :: (Linux connects 0.0.0.0 to this host itself)
//   private       10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7 (unique local), fec0::/10 (site local)
//   shared        100.64.0.0/10 (carrier-grade NAT, RFC 6598; also the range of some overlay networks)
//   link-local    169.254.0.0/16 (the cloud metadata address 169.254.169.254), fe80::/10
//   multicast     224.0.0.0/4, ff00::/8
//   reserved      the documentation, benchmarking and IETF protocol blocks, 240.0.0.0/4
//                 (255.255.255.255 included), IPv4-compatible ::/96, 100::/64, 2001:db8::/32
//
// An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address's kind
// (net.BlockList matches IPv4 rules against mapped addresses), and so is a
// NAT64 address of the well-known prefix (64:ff9b::127.0.0.1). A zone index
// (fe80::1%eth0) does not change the kind.
import net from 'node:net';
import { parseIPv6 } from './address.js';

export type AddressKind = 'public' | 'loopback' | 'unspecified' | 'private' | 'shared' | 'link-local' | 'multicast' | 'reserved';

// In this order: ::/96 (reserved) holds :: and ::1.
const BLOCKS: [Exclude<AddressKind, 'public'>, string[]][] = [
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10']],
  ['shared', ['100.64.0.0/10']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4', '::/96', '100::/64', '2001:db8::/32']],
];

let lists: [Exclude<AddressKind, 'public'>, net.BlockList][] | null = null;
const NAT64 = new net.BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');
const scratch = new Uint8Array(16);

/** The kind of an IP address as text (what dns.lookup answers, a URL's host without brackets); null when it is not one. */
export function addressKind(ip: string): AddressKind | null {
  const family = net.isIP(ip);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (type === 'ipv6' && NAT64.check(ip, 'ipv6') && parseIPv6(ip.replace(/%.*$/s, ''), scratch)) {
    return addressKind(scratch.subarray(12).join('.'));
  }
  lists ??= BLOCKS.map(([kind, cidrs]) => {
    const list = new net.BlockList();
    for (const cidr of cidrs) {
      const [base, prefix] = cidr.split('/');
      list.addSubnet(base, Number(prefix), net.isIP(base) === 4 ? 'ipv4' : 'ipv6');
    }
    return [kind, list];
  });
  return lists.find(([, list]) => list.check(ip, type))?.[0] ?? 'public';
}

/** How a message names a kind: "a loopback address", "a shared (carrier-grade NAT) address". */
export function kindName(kind: AddressKind): string {
  return kind === 'shared' ? 'a shared (carrier-grade NAT) address' : `a${/^[aeiou]/.test(kind) ? 'n' : ''} ${kind} address`;
}
