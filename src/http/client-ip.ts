// The visitor's address as 16 bytes (IPv4 as ::ffff:a.b.c.d), straight from
// the socket. X-Forwarded-For is believed only from a trusted proxy, and then
// read right to left: the first address that is not itself a trusted proxy
// is the client (anything further left is the client's own claim).
import type { Cidr } from '../config.js';
import { parseIp, writeMapped } from '../ipdb/address.js';

export function normalizeAddress(raw: ArrayBuffer, out = new Uint8Array(16)): Uint8Array {
  const a = new Uint8Array(raw);
  if (a.length === 4) writeMapped(((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]) >>> 0, out);
  else if (a.length === 16) out.set(a);
  else out.fill(0);
  return out;
}

export function inCidrs(a: Uint8Array, cidrs: readonly Cidr[]): boolean {
  for (const c of cidrs) {
    let bits = c.prefix;
    let i = 0;
    for (; bits >= 8; bits -= 8, i++) if (a[i] !== c.bytes[i]) break;
    if (bits >= 8) continue;
    if (bits === 0 || ((a[i] ^ c.bytes[i]) & (0xff << (8 - bits)) & 0xff) === 0) return true;
  }
  return false;
}

/** The client address given the peer and the X-Forwarded-For header ('' when absent). */
export function clientAddress(peer: Uint8Array, forwardedFor: string, trusted: readonly Cidr[]): Uint8Array {
  if (trusted.length === 0 || forwardedFor === '' || !inCidrs(peer, trusted)) return peer;
  const hops = forwardedFor.split(',');
  const a = new Uint8Array(16);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (parseIp(hops[i].trim(), a) === 0) return peer;
    if (!inCidrs(a, trusted)) return a;
  }
  return peer;
}

export const LOOPBACK: Cidr[] = [
  { bytes: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 0]), prefix: 104 },
  { bytes: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), prefix: 128 },
];
