// The client address behind trusted proxies. ClientAddressReader (the
// redirect's allocation-free reader) is compared with the straightforward
// reading it replaced, kept here as the reference: split X-Forwarded-For on
// commas, trim each hop, read a hop with a colon without its brackets, port
// or zone ([2001:db8::1]:443, 3.5.0.1:443, fe80::1%eth0), walk right to
// left, the first hop that is not a trusted proxy is the client, and
// anything unparsable means the peer.
import { describe, expect, it } from 'vitest';
import { type Cidr, parseCidr } from '../../src/config.js';
import { ClientAddressReader, clientAddress, inCidrs, normalizeAddress } from '../../src/http/client-ip.js';
import { parseIp, writeMapped } from '../../src/ipdb/address.js';
import { TEST_SEED, xorshift32 } from '../helpers/seeded.js';

/** The reading ClientAddressReader replaced (16-byte peer in, 16 bytes out). */
function reference(peer: Uint8Array, forwardedFor: string, trusted: readonly Cidr[]): Uint8Array {
  if (trusted.length === 0 || forwardedFor === '' || !inCidrs(peer, trusted)) return peer;
  const hops = forwardedFor.split(',');
  const a = new Uint8Array(16);
  const bare = (hop: string) => {
    const bracketed = /^\[([^\]]*)\]/.exec(hop);
    const v4WithPort = /^([^:]*\.[^:]*):[^:]*$/.exec(hop);
    const address = bracketed ? bracketed[1] : v4WithPort ? v4WithPort[1] : hop;
    return v4WithPort && !bracketed ? address : address.split('%')[0];
  };
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i].trim();
    if (parseIp(hop.includes(':') ? bare(hop) : hop, a) === 0) return peer;
    if (!inCidrs(a, trusted)) return a;
  }
  return peer;
}

const cidrs = (...texts: string[]) => texts.map((t) => {
  const c = parseCidr(t);
  if (!c) throw new Error(t);
  return c;
});
const hex = (a: Uint8Array) => Buffer.from(a).toString('hex');
const bytesOf = (text: string) => {
  const a = new Uint8Array(16);
  if (parseIp(text, a) === 0) throw new Error(text);
  return a;
};
/** What the reader gives, as 16 bytes. */
function read(reader: ClientAddressReader, peer: Uint8Array, xff: string): Uint8Array {
  const v4 = reader.resolve(peer, xff);
  if (v4 < 0) return Uint8Array.from(reader.bytes);
  const out = new Uint8Array(16);
  writeMapped(v4, out);
  return out;
}
const raw4 = (text: string) => bytesOf(text).slice(12);

describe('ClientAddressReader', () => {
  const trusted = cidrs('127.0.0.1', '10.0.0.0/8', '192.168.1.128/25', 'fd00::/8', '::1');
  const reader = new ClientAddressReader(trusted);

  it.each<[string, string, string]>([
    ['127.0.0.1', '3.5.0.1', '3.5.0.1'],
    ['127.0.0.1', '80.128.0.1, 3.5.0.1', '3.5.0.1'],
    ['127.0.0.1', '3.5.0.1, 80.128.0.1', '80.128.0.1'],
    ['127.0.0.1', '3.5.0.1, 127.0.0.1', '3.5.0.1'],
    ['127.0.0.1', '80.128.0.1,127.0.0.1, ::1', '80.128.0.1'],
    ['127.0.0.1', '80.128.0.1, 10.9.9.9, 192.168.1.200', '80.128.0.1'],
    ['127.0.0.1', '80.128.0.1, 192.168.1.100', '192.168.1.100'],
    ['127.0.0.1', 'not-an-address', '127.0.0.1'],
    ['127.0.0.1', '', '127.0.0.1'],
    ['127.0.0.1', ',', '127.0.0.1'],
    ['127.0.0.1', '3.5.0.1,', '127.0.0.1'],
    ['127.0.0.1', ',3.5.0.1', '3.5.0.1'],
    ['127.0.0.1', '10.0.0.1, 10.0.0.2', '127.0.0.1'],
    ['127.0.0.1', '\t3.5.0.1\u00a0', '3.5.0.1'],
    ['127.0.0.1', '2001:db8::1', '2001:db8::1'],
    ['127.0.0.1', '2001:db8::1, fd00::7', '2001:db8::1'],
    ['127.0.0.1', '::ffff:3.5.0.1', '3.5.0.1'],
    ['127.0.0.1', '[2001:db8::1]', '2001:db8::1'],
    ['127.0.0.1', '[2001:db8::1]:443', '2001:db8::1'],
    ['127.0.0.1', '3.5.0.1:443', '3.5.0.1'],
    ['127.0.0.1', 'fe80::1%eth0', 'fe80::1'],
    ['127.0.0.1', '[1.2.3.4]', '127.0.0.1'],
    ['80.128.0.1', '3.5.0.1', '80.128.0.1'], // an untrusted peer's header is not read
    ['fd00::1', '3.5.0.1', '3.5.0.1'],
    ['2001:db8::5', '3.5.0.1', '2001:db8::5'],
  ])('peer %s, X-Forwarded-For %j → %s', (peer, xff, client) => {
    const peerBytes = peer.includes(':') ? bytesOf(peer) : raw4(peer);
    expect(hex(read(reader, peerBytes, xff))).toBe(hex(bytesOf(client)));
    expect(hex(clientAddress(normalizeAddress(peerBytes.slice().buffer), xff, trusted))).toBe(hex(bytesOf(client)));
  });

  it('trusts nothing when no proxy is configured', () => {
    expect(hex(read(new ClientAddressReader([]), raw4('127.0.0.1'), '3.5.0.1'))).toBe(hex(bytesOf('127.0.0.1')));
  });

  it('reads IPv4 blocks given in IPv6 form, and blocks wider than IPv4', () => {
    const wide = new ClientAddressReader(cidrs('::ffff:0:0/96'));
    // Every IPv4 address is a trusted proxy: the IPv6 hop is the client, or the peer when there is none.
    expect(hex(read(wide, raw4('8.8.8.8'), '2001:db8::1, 3.5.0.1, 9.9.9.9'))).toBe(hex(bytesOf('2001:db8::1')));
    expect(hex(read(wide, raw4('8.8.8.8'), '3.5.0.1, 9.9.9.9'))).toBe(hex(bytesOf('8.8.8.8')));
    const all = new ClientAddressReader(cidrs('::/0'));
    expect(hex(read(all, raw4('8.8.8.8'), '2001:db8::1, 3.5.0.1'))).toBe(hex(bytesOf('8.8.8.8')));
    const v6only = new ClientAddressReader(cidrs('2001:db8::/32'));
    expect(hex(read(v6only, raw4('8.8.8.8'), '3.5.0.1'))).toBe(hex(bytesOf('8.8.8.8')));
    const mapped = new ClientAddressReader(cidrs('::ffff:10.0.0.0/104'));
    expect(hex(read(mapped, raw4('10.1.1.1'), '3.5.0.1'))).toBe(hex(bytesOf('3.5.0.1')));
  });

  it('trims exactly the characters String.prototype.trim() trims', () => {
    const peer = raw4('127.0.0.1');
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      const xff = `${ch}3.5.0.1${ch}`;
      expect(hex(read(reader, peer, xff)), `U+${c.toString(16)}`).toBe(hex(reference(normalizeAddress(peer.slice().buffer), xff, trusted)));
    }
  });

  it(`agrees with the reference reading on random headers (seed ${TEST_SEED})`, () => {
    const rand = xorshift32(TEST_SEED);
    const pick = <T>(xs: readonly T[]): T => xs[rand() % xs.length];
    const hops = ['3.5.0.1', '80.128.0.1', '10.0.0.1', '10.255.255.255', '127.0.0.1', '192.168.1.129', '192.168.1.127', '0.0.0.0',
      '255.255.255.255', '1.2.3', '1.2.3.4.5', '01.2.3.4', '256.1.1.1', '::1', 'fd00::1', '2001:db8::1', '::ffff:10.0.0.1',
      '::ffff:3.5.0.1', 'fe80::1%eth0', 'unknown', '', ' ', '1.2.3.4 5', '2001:db8::1:', ':::', '3.5.0.1:443', '[2001:db8::1]:443',
      '[fd00::1]', '[fe80::1%eth0]:80', '10.0.0.1:', '1.2.3.4:5:6', '[::ffff:3.5.0.1]', '[2001:db8::1'];
    const spaces = ['', '', '', ' ', '  ', '\t', '\u00a0', '\u2003', '\ufeff'];
    const peers = ['127.0.0.1', '10.1.2.3', '80.128.0.1', '::1', 'fd00::9', '2001:db8::2', '::ffff:127.0.0.1'];
    const sets = [trusted, cidrs('127.0.0.1'), cidrs('0.0.0.0/0'), cidrs('::/0'), cidrs('::ffff:0:0/96', 'fd00::/7'), []];
    const readers = sets.map((s) => new ClientAddressReader(s));
    for (let n = 0; n < 20_000; n++) {
      const k = rand() % sets.length;
      const count = rand() % 5;
      const xff = Array.from({ length: count }, () => `${pick(spaces)}${pick(hops)}${pick(spaces)}`).join(',');
      const peerText = pick(peers);
      const peer = peerText.includes(':') && !peerText.startsWith('::ffff:') ? bytesOf(peerText) : rand() % 2 ? raw4(peerText.replace('::ffff:', '')) : bytesOf(peerText);
      const expected = reference(normalizeAddress(peer.slice().buffer), xff, sets[k]);
      expect(hex(read(readers[k], peer, xff)), `${peerText} ${JSON.stringify(xff)} set ${k}`).toBe(hex(expected));
    }
  });
});
