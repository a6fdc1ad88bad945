// The visitor's address, straight from the socket. X-Forwarded-For is
// believed only from a trusted proxy, and then read right to left: the first
// address that is not itself a trusted proxy is the client (anything further
// left is the client's own claim, never read).
//
// The redirect reads it on every visit, so ClientAddressReader does it
// without allocating: the peer's bytes are read in place (uWS hands them over
// as 4 or 16 bytes), trusted blocks are compiled once into IPv4 network/mask
// pairs, and X-Forwarded-For is scanned by index from its end, each hop
// parsed where it lies (an IPv6 hop, rare behind a proxy, is copied out to
// be parsed). The cold paths (the API's failure limit, /metrics) use
// normalizeAddress and clientAddress, which give the same answer as 16 bytes.
import type { Cidr } from '../config.js';
import { mappedIPv4, parseIp, parseIPv4, writeMapped } from '../ipdb/address.js';

export function normalizeAddress(raw: ArrayBuffer, out = new Uint8Array(16)): Uint8Array {
  const a = new Uint8Array(raw);
  if (a.length === 4) writeMapped(((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]) >>> 0, out);
  else if (a.length === 16) out.set(a);
  else out.fill(0);
  return out;
}

/**
 * The key an address is counted under by the per-address limits (failed API
 * authentications, console sign-ins): an IPv4 address (mapped) as it is, an
 * IPv6 address by its /64, the block one subscriber or one server is given.
 * Counted by the exact address, one IPv6 host would have 2^64 counts of its
 * own (docs/reliability.md, finding 43).
 * Modifies `address` in place and returns it.
 */
export function limitKey(address: Uint8Array): Uint8Array {
  if (mappedIPv4(address) < 0) address.fill(0, 8);
  return address;
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

const ZERO16 = new Uint8Array(16);

/**
 * Whether a character is one String.prototype.trim() removes (ECMAScript
 * WhiteSpace and LineTerminator), so that a hop is read exactly as
 * `hop.trim()` would leave it.
 */
function isTrimmed(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * The client address of a visit: `resolve()` returns it as an unsigned IPv4
 * integer, or -1 for an IPv6 address, whose 16 bytes are then in `bytes`.
 * One per thread: `bytes` is overwritten by the next call.
 */
export class ClientAddressReader {
  /** The client's 16 bytes when resolve() returned -1. */
  readonly bytes = new Uint8Array(16);
  readonly #trusted: readonly Cidr[];
  /** Trusted blocks that hold IPv4 addresses, as network and mask (mask 0: every IPv4 address). */
  readonly #net4: Uint32Array;
  readonly #mask4: Uint32Array;
  readonly #hop = new Uint8Array(16);
  /**
   * Set by resolve() when a trusted proxy forwarded a hop that is no address
   * (the peer was taken for the client). Reset only where a forwarded header
   * is read, so that a visit without one writes nothing: read it from a
   * fresh reader (clientAddress makes one per call).
   */
  unreadHop = false;

  constructor(trusted: readonly Cidr[]) {
    this.#trusted = trusted;
    const net: number[] = [];
    const mask: number[] = [];
    for (const c of trusted) {
      // The block holds IPv4 addresses when its first min(prefix, 96) bits
      // are those of ::ffff:0:0/96; the rest of the prefix masks the IPv4 part.
      const v4 = new Uint8Array(16);
      writeMapped(0, v4);
      if (!inCidrs(v4, [{ bytes: c.bytes, prefix: Math.min(c.prefix, 96) }])) continue;
      const bits = Math.max(0, c.prefix - 96);
      const m = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      net.push((((c.bytes[12] << 24) | (c.bytes[13] << 16) | (c.bytes[14] << 8) | c.bytes[15]) & m) >>> 0);
      mask.push(m);
    }
    this.#net4 = Uint32Array.from(net);
    this.#mask4 = Uint32Array.from(mask);
  }

  /** Whether an IPv4 address (unsigned) is a trusted proxy. */
  trusted4(ip: number): boolean {
    const net = this.#net4;
    const mask = this.#mask4;
    for (let i = 0; i < net.length; i++) if (((ip & mask[i]) >>> 0) === net[i]) return true;
    return false;
  }

  /**
   * The client address given the socket peer (4 or 16 bytes, as uWS gives
   * it) and the X-Forwarded-For header ('' when absent or not read).
   */
  resolve(peer: Uint8Array, forwardedFor: string): number {
    let peer4: number;
    if (peer.length === 4) {
      peer4 = ((peer[0] << 24) | (peer[1] << 16) | (peer[2] << 8) | peer[3]) >>> 0;
    } else if (peer.length === 16) {
      peer4 = mappedIPv4(peer);
    } else {
      // Never from uWS; read as the all-zero address, like normalizeAddress.
      peer = ZERO16;
      peer4 = -1;
    }
    if (forwardedFor === '' || this.#trusted.length === 0 || !(peer4 >= 0 ? this.trusted4(peer4) : inCidrs(peer, this.#trusted))) {
      return this.#peer(peer, peer4);
    }
    // Hops right to left: [start, end) between commas, trimmed. (Only a
    // forwarded request resets unreadHop: a visit without one writes nothing.)
    this.unreadHop = false;
    let end = forwardedFor.length;
    for (;;) {
      // One pass back to the comma before the hop, noting any colon (IPv6).
      let comma = end - 1;
      let colon = false;
      for (; comma >= 0; comma--) {
        const c = forwardedFor.charCodeAt(comma);
        if (c === 44) break;
        if (c === 58) colon = true;
      }
      let start = comma + 1;
      let stop = end;
      while (start < stop && isTrimmed(forwardedFor.charCodeAt(start))) start++;
      while (stop > start && isTrimmed(forwardedFor.charCodeAt(stop - 1))) stop--;
      if (!colon) {
        const hop = parseIPv4(forwardedFor, start, stop);
        if (hop < 0) return this.#unread(peer, peer4);
        if (!this.trusted4(hop)) return hop;
      } else {
        const hop = this.#hop;
        if (parseIp(bareHop(forwardedFor.slice(start, stop)), hop) === 0) return this.#unread(peer, peer4);
        if (!inCidrs(hop, this.#trusted)) {
          this.bytes.set(hop);
          return -1;
        }
      }
      if (comma < 0) return this.#peer(peer, peer4);
      end = comma;
    }
  }

  /** A hop that is no address ("unknown", garbage): the peer, noted (see unreadHop). */
  #unread(peer: Uint8Array, peer4: number): number {
    this.unreadHop = true;
    return this.#peer(peer, peer4);
  }

  #peer(peer: Uint8Array, peer4: number): number {
    if (peer4 < 0) this.bytes.set(peer);
    return peer4;
  }
}

/**
 * A hop with a colon as its address alone: proxies also write the client's
 * port (`203.0.113.5:5555`, `[2001:db8::5]:443`: Azure Application Gateway,
 * IIS ARR), brackets, or a zone (`fe80::1%eth0`). Read as an unreadable hop,
 * such a hop would make the trusted proxy the client of every visit
 * (docs/reliability.md, finding 58).
 */
function bareHop(text: string): string {
  let hop = text;
  if (hop.startsWith('[')) {
    const close = hop.indexOf(']');
    if (close > 0) hop = hop.slice(1, close);
  } else {
    const colon = hop.indexOf(':');
    if (colon > 0 && hop.indexOf(':', colon + 1) < 0 && hop.lastIndexOf('.', colon) > 0) return hop.slice(0, colon);
  }
  const zone = hop.indexOf('%');
  return zone < 0 ? hop : hop.slice(0, zone);
}

/**
 * The client address as 16 bytes (IPv4 mapped), given the peer's 16 bytes
 * and the X-Forwarded-For header ('' when absent). `strict`: null when a
 * trusted proxy forwarded a hop that is no address, rather than the peer
 * (for /metrics, where a proxy on the same host is loopback).
 */
export function clientAddress(peer: Uint8Array, forwardedFor: string, trusted: readonly Cidr[]): Uint8Array;
export function clientAddress(peer: Uint8Array, forwardedFor: string, trusted: readonly Cidr[], strict: true): Uint8Array | null;
export function clientAddress(peer: Uint8Array, forwardedFor: string, trusted: readonly Cidr[], strict = false): Uint8Array | null {
  const reader = new ClientAddressReader(trusted);
  const v4 = reader.resolve(peer, forwardedFor);
  if (strict && reader.unreadHop) return null;
  if (v4 < 0) return reader.bytes;
  const out = new Uint8Array(16);
  writeMapped(v4, out);
  return out;
}

export const LOOPBACK: Cidr[] = [
  { bytes: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 0]), prefix: 104 },
  { bytes: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), prefix: 128 },
];
