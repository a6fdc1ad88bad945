// Address text <-> bytes: parseIPv4 / parseIPv6 / parseIp accept exactly the
// documented strict forms, and formatIPv6 writes RFC 5952 text that parses back
// to the same bytes. Node's net.isIPv4 / net.isIPv6 and the WHATWG URL
// parser's IPv6 serializer are the independent references; where Node is more
// lenient than our documented strictness (zone ids) the table says so.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6, mappedIPv4, parseIp, parseIPv4, parseIPv6 } from '../../src/ipdb/address.js';
import { TEST_SEED, xorshift32 } from '../helpers/seeded.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The WHATWG URL parser's canonical (RFC 5952) text for an IPv6 address. */
const urlCanonical = (s: string) => new URL(`http://[${s}]`).hostname.slice(1, -1);

type Family = 0 | 4 | 6;

// [text, what we return, what Node's net.isIP returns when it differs]
const table: [string, Family, Family?][] = [
  ['0.0.0.0', 4],
  ['255.255.255.255', 4],
  ['1.2.3.4', 4],
  ['10.0.0.1', 4],
  ['192.168.100.200', 4],
  ['01.2.3.4', 0],
  ['1.02.3.4', 0],
  ['1.2.3.04', 0],
  ['00.0.0.0', 0],
  ['1.2.3.0004', 0],
  ['256.1.1.1', 0],
  ['1.2.3.256', 0],
  ['1234.1.1.1', 0],
  ['1.2.3', 0],
  ['1.2.3.4.5', 0],
  ['1.2.3.4.', 0],
  ['.1.2.3.4', 0],
  ['1..2.3', 0],
  ['', 0],
  [' 1.2.3.4', 0],
  ['1.2.3.4 ', 0],
  ['1.2.3.4\n', 0],
  ['0x1.2.3.4', 0],
  ['+1.2.3.4', 0],
  ['1.2.3.-1', 0],
  ['1e1.2.3.4', 0],
  ['1.2.3.4/24', 0],
  ['1.2.3.4:80', 0],
  ['4294967295', 0],
  ['16777216', 0],
  ['\uff11.2.3.4', 0], // fullwidth digit one
  ['\u0661.2.3.4', 0], // Arabic-Indic digit one
  ['::', 6],
  ['::1', 6],
  ['1::', 6],
  ['1:2:3:4:5:6:7:8', 6],
  ['1:2:3:4:5:6:7::', 6],
  ['::2:3:4:5:6:7:8', 6],
  ['1::8', 6],
  ['2001:db8::1', 6],
  ['2001:DB8::1', 6],
  ['2001:0db8:0000:0000:0000:0000:0000:0001', 6],
  ['0:0:0:0:0:0:0:0', 6],
  ['fe80::', 6],
  ['::ffff:1.2.3.4', 6],
  ['::ffff:0102:0304', 6],
  ['::1.2.3.4', 6],
  ['1::1.2.3.4', 6],
  ['1:2:3:4:5:6:1.2.3.4', 6],
  ['64:ff9b::192.0.2.33', 6],
  ['ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255', 6],
  ['0000:0000:0000:0000:0000:ffff:255.255.255.255', 6],
  [':', 0],
  [':::', 0],
  ['1:::2', 0],
  ['1::2::3', 0],
  [':1::2', 0],
  ['1::2:', 0],
  [':1:2:3:4:5:6:7:8', 0],
  ['1:2:3:4:5:6:7:8:', 0],
  ['1:2:3:4:5:6:7', 0],
  ['1:2:3:4:5:6:7:8:9', 0],
  ['1:2:3:4:5:6:7:8::', 0],
  ['::1:2:3:4:5:6:7:8', 0],
  ['1::2:3:4:5:6:7:8', 0],
  ['12345::', 0],
  ['00000::', 0],
  ['g::', 0],
  ['::-1', 0],
  ['0x1::', 0],
  ['1:2:3:4:5:6:7:1.2.3.4', 0],
  ['1::2:3:4:5:6:1.2.3.4', 0],
  ['::ffff:01.2.3.4', 0],
  ['::ffff:1.2.3', 0],
  ['::ffff:1.2.3.4.5', 0],
  ['::ffff:256.1.1.1', 0],
  ['::1.2.3.4:5', 0],
  ['::1a.2.3.4', 0],
  ['1.2.3.4::', 0],
  [' ::1', 0],
  ['::1 ', 0],
  // Our documented strictness: no brackets, no zone ids. Node accepts zone ids.
  ['[::1]', 0],
  ['[2001:db8::1]', 0],
  ['fe80::1%eth0', 0, 6],
  ['fe80::1%1', 0, 6],
  ['::ffff:1.2.3.4%eth0', 0, 6],
];

describe('address text is accepted exactly when it is a strict IPv4 or IPv6 address', () => {
  it.each(table)('%j', (text, ours, node) => {
    const out = new Uint8Array(16);
    expect(parseIPv4(text) >= 0, 'parseIPv4').toBe(ours === 4);
    expect(parseIPv6(text, out), 'parseIPv6').toBe(ours === 6);
    expect(parseIp(text, out), 'parseIp').toBe(ours);
    // The table is checked against Node too, so a wrong expectation cannot hide.
    expect(net.isIP(text), 'net.isIP').toBe(node ?? ours);
  });

  it('parseIPv4 returns the unsigned 32-bit value', () => {
    expect(parseIPv4('0.0.0.0')).toBe(0);
    expect(parseIPv4('1.2.3.4')).toBe(0x01020304);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('128.0.0.1')).toBe(0x80000001);
  });

  it('agrees with net.isIPv4 / net.isIPv6 on random and mutated strings', () => {
    const next = xorshift32(TEST_SEED);
    const pick = <T>(xs: readonly T[]) => xs[next() % xs.length];
    const group = () => (next() % 0x10000).toString(16).padStart(next() % 5, '0');
    const octet = () => pick(['0', '00', '01', '9', '10', '99', '100', '255', '256', '999', String(next() % 256)]);
    const quad = () => `${octet()}.${octet()}.${octet()}.${octet()}`;
    const valid = () => {
      const n = next() % 9;
      const words = Array.from({ length: 8 }, group);
      let text = words.slice(0, n).join(':');
      if (n < 8) text += `::${words.slice(n + 1 + (next() % (8 - n)), 8).join(':')}`;
      if (next() % 4 === 0) text = text.replace(/(:?)[0-9a-f]*:[0-9a-f]*$/, `$1${quad()}`);
      return text;
    };
    const alphabet = '0123456789abcdefABCDEFg:::...';
    const mutate = (s: string) => {
      const at = next() % (s.length + 1);
      const c = pick([...alphabet]);
      switch (next() % 3) {
        case 0: return s.slice(0, at) + c + s.slice(at);
        case 1: return s.slice(0, at) + s.slice(at + 1);
        default: return s.slice(0, at) + c + s.slice(at + 1);
      }
    };
    const out = new Uint8Array(16);
    const problems: string[] = [];
    let accepted = 0;
    const total = 60_000;
    for (let i = 0; i < total; i++) {
      let s: string;
      switch (i % 4) {
        case 0: s = valid(); break;
        case 1: s = mutate(valid()); break;
        case 2: s = next() % 2 ? quad() : mutate(quad()); break;
        default: s = Array.from({ length: 1 + (next() % 20) }, () => pick([...alphabet])).join('');
      }
      const ours = parseIp(s, out);
      if (ours !== 0) accepted++;
      if (ours !== net.isIP(s) || (parseIPv4(s) >= 0) !== net.isIPv4(s) || parseIPv6(s, out) !== net.isIPv6(s)) {
        problems.push(`${JSON.stringify(s)}: ours ${ours}, node ${net.isIP(s)}`);
      }
    }
    expect(problems.slice(0, 20), `${problems.length} disagreements with Node (seed ${TEST_SEED})`).toEqual([]);
    expect(accepted).toBeGreaterThan(total / 5);
    expect(accepted).toBeLessThan(total - total / 5);
  });
});

describe('IPv6 text round trips through bytes in RFC 5952 form', () => {
  it('random bytes -> formatIPv6 -> parseIPv6 gives the bytes back, and the text is canonical', () => {
    const next = xorshift32(TEST_SEED + 1);
    const bytes = new Uint8Array(16);
    const back = new Uint8Array(16);
    const problems: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      // Zero-heavy words with varying magnitudes: zero runs, ties between
      // runs, single zero words and leading zeros inside words all occur.
      for (let k = 0; k < 8; k++) {
        const r = next();
        const word = r % 3 === 0 ? 0 : (r >>> 8) & [0xf, 0xff, 0xfff, 0xffff][(r >>> 2) & 3];
        bytes[2 * k] = word >>> 8;
        bytes[2 * k + 1] = word & 0xff;
      }
      const text = formatIPv6(bytes);
      back.fill(0xaa);
      const ok = parseIPv6(text, back);
      const full = Array.from({ length: 8 }, (_, k) => ((bytes[2 * k] << 8) | bytes[2 * k + 1]).toString(16)).join(':');
      const canonical = urlCanonical(full);
      if (!ok || hex(back) !== hex(bytes) || text !== canonical) {
        problems.push(`${hex(bytes)}: formatIPv6 ${JSON.stringify(text)}, URL ${JSON.stringify(canonical)}, parsed ${ok ? hex(back) : 'invalid'}`);
      }
    }
    expect(problems.slice(0, 20), `${problems.length} failures (seed ${TEST_SEED})`).toEqual([]);
  });

  it('formatIPv6 reads 16 bytes at the given offset', () => {
    const buffer = new Uint8Array(40).fill(0xee);
    buffer.set([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 7);
    expect(formatIPv6(buffer, 7)).toBe('2001:db8::1');
  });

  it('RFC 5952 cases: longest run compressed, first of equal runs, no single-word "::", lower case', () => {
    const cases: [string, string][] = [
      ['2001:0DB8:0000:0000:0000:0000:0002:0001', '2001:db8::2:1'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['0:0:0:0:0:0:0:0', '::'],
      ['0:0:0:0:0:0:0:1', '::1'],
      ['1:0:0:0:0:0:0:0', '1::'],
      ['1:0:2:0:3:0:4:0', '1:0:2:0:3:0:4:0'],
    ];
    const bytes = new Uint8Array(16);
    for (const [input, expected] of cases) {
      expect(parseIPv6(input, bytes), input).toBe(true);
      expect(formatIPv6(bytes), input).toBe(expected);
      expect(urlCanonical(input), `URL reference for ${input}`).toBe(expected);
    }
  });

  it('every valid spelling of an address gives the same bytes', () => {
    const spellings = [
      '2001:db8::1:0:0:1',
      '2001:0db8:0000:0000:0001:0000:0000:0001',
      '2001:DB8:0:0:1::1',
      '2001:db8::1:0:0.0.0.1',
      '2001:db8:0:0:1:0:0:1',
    ];
    const expected = '20010db8000000000001000000000001';
    for (const s of spellings) {
      const out = new Uint8Array(16).fill(0xaa);
      expect(parseIPv6(s, out), s).toBe(true);
      expect(hex(out), s).toBe(expected);
    }
  });
});

describe('IPv4 text and IPv4-mapped IPv6', () => {
  it('formatIPv4 and parseIPv4 are inverse on random addresses', () => {
    const next = xorshift32(TEST_SEED + 2);
    for (let i = 0; i < 20_000; i++) {
      const v = next() >>> (next() % 32); // small values too
      const text = formatIPv4(v);
      expect(text).toBe(`${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`);
      expect(parseIPv4(text), text).toBe(v);
    }
  });

  it('IPv4 text and every IPv4-mapped spelling give ::ffff:a.b.c.d bytes', () => {
    const expected = '00000000000000000000ffff01020304';
    const spellings: [string, Family][] = [
      ['1.2.3.4', 4],
      ['::ffff:1.2.3.4', 6],
      ['::ffff:0102:0304', 6],
      ['::FFFF:102:304', 6],
      ['0:0:0:0:0:ffff:1.2.3.4', 6],
      ['0000:0000:0000:0000:0000:ffff:0102:0304', 6],
    ];
    for (const [s, family] of spellings) {
      const out = new Uint8Array(16).fill(0xaa);
      expect(parseIp(s, out), s).toBe(family);
      expect(hex(out), s).toBe(expected);
      expect(mappedIPv4(out), s).toBe(0x01020304);
    }
    const out = new Uint8Array(16);
    parseIp('1.2.3.4', out);
    expect(formatIPv6(out)).toBe(urlCanonical('::ffff:1.2.3.4'));
  });

  it('mappedIPv4 is -1 for addresses that are not ::ffff:0:0/96', () => {
    for (const s of ['::1.2.3.4', '::fffe:1.2.3.4', '1::ffff:1.2.3.4', '::1:ffff:1.2.3.4', '::', 'ffff::1.2.3.4']) {
      const out = new Uint8Array(16);
      expect(parseIPv6(s, out), s).toBe(true);
      expect(mappedIPv4(out), s).toBe(-1);
    }
    const out = new Uint8Array(16);
    parseIPv6('::ffff:255.255.255.255', out);
    expect(mappedIPv4(out)).toBe(0xffffffff);
    parseIPv6('::ffff:0.0.0.0', out);
    expect(mappedIPv4(out)).toBe(0);
  });
});
