// onionoo-json reads a Tor Onionoo details document: the OR addresses (port
// stripped, IPv6 unbracketed) and exit addresses of the running relays that
// carry the Exit flag; relays without the Exit flag, relays not running and
// bridges are left out, an address the document repeats counts once, and
// the version is relays_published. A document of another shape is refused
// by name, as the other formats are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cidrRange, parseFeed } from '../../../src/ipdb/feeds/parse.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/feeds');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const bytes = (s: string) => new TextEncoder().encode(s);
const host = (a: string): [bigint, bigint] => {
  const r = cidrRange(a)!;
  return [r.start, r.end];
};

describe('the details document as Onionoo serves it in full (every relay, every field)', () => {
  const parsed = parseFeed('onionoo-json', fixture('onionoo-details-full.json'), 'details-full.json');

  it('keeps the running exits and leaves the rest out', () => {
    // Quintex152 (Exit, IPv4 and IPv6 OR addresses, its exit address repeats
    // the IPv4 one) and titamon3 (Exit, IPv4 only). BaumiMiddleRelays has no
    // Exit flag, skylarkRelay is not running, moar14 is a bridge.
    expect(parsed.ranges!.v4).toEqual([host('204.8.96.141'), host('178.218.144.18')]);
    expect(parsed.ranges!.v6).toEqual([host('2620:7:6003::141')]);
    expect(parsed).toMatchObject({ version: '2026-09-04 03:00:00', entries: 3, malformed: 0, special: 0 });
  });
});

describe('the shipped snapshot shape (fields fingerprint, or_addresses, country; one relay a line)', () => {
  const parsed = parseFeed('onionoo-json', fixture('tor-onionoo-exits.json'), 'tor-onionoo-exits.json');

  it('takes every relay when the document carries no flags (the query chose them)', () => {
    expect(parsed.ranges!.v4).toHaveLength(12);
    expect(parsed.ranges!.v6).toHaveLength(10);
    expect(parsed.ranges!.v6[0]).toEqual(host('2620:7:6003::141'));
    expect(parsed.ranges!.v6).toContainEqual(host('2001:67c:e60:c0c:192:42:116:43'));
    expect(parsed).toMatchObject({ version: '2026-08-22 11:00:00', malformed: 0 });
  });
});

describe('strictness', () => {
  const doc = (relays: unknown[]) => bytes(JSON.stringify({ version: '8.0', relays_published: '2026-11-23 10:00:00', relays }));
  const exits = (n: number) => Array.from({ length: n }, (_, i) => ({ or_addresses: [`185.220.101.${i + 1}:9001`, `[2a0b:f4c2::${(i + 1).toString(16)}]:9001`], flags: ['Exit', 'Running'] }));

  it('accepts port lists and upper-case IPv6, counts repeats once', () => {
    const parsed = parseFeed('onionoo-json', doc([
      { or_addresses: ['185.220.101.1:443,9001', '[2A0B:F4C2::1]:443'], exit_addresses: ['185.220.101.1', '185.220.101.2', '2a0b:f4c2::1'], flags: ['Exit'] },
    ]), 'x');
    expect(parsed.ranges!.v4).toEqual([host('185.220.101.1'), host('185.220.101.2')]);
    expect(parsed.ranges!.v6).toEqual([host('2a0b:f4c2::1')]);
    expect(parsed.entries).toBe(3);
  });

  it('leaves special-purpose addresses out (a relay behind NAT, a documentation address)', () => {
    const parsed = parseFeed('onionoo-json', doc([...exits(3), { or_addresses: ['10.0.0.5:9001', '[2001:db8::5]:9001'], flags: ['Exit'] }]), 'x');
    expect(parsed).toMatchObject({ special: 2, malformed: 0 });
    expect(parsed.ranges!.v4).toHaveLength(3);
  });

  it('skips and counts a malformed address among many good ones', () => {
    const relays: unknown[] = exits(120);
    relays.push({ or_addresses: ['185.220.102.1'], flags: ['Exit'] });
    const parsed = parseFeed('onionoo-json', doc(relays), 'x');
    expect(parsed).toMatchObject({ malformed: 1, examples: ['185.220.102.1'] });
    expect(parsed.ranges!.v4).toHaveLength(120);
  });

  it.each([
    ['an HTML page', '<!doctype html><html>Service unavailable</html>', /is not valid JSON/],
    ['a JSON array', '[]', /is not a JSON object/],
    ['a summary of another shape', JSON.stringify({ relays_published: 'x', relay: [] }), /has no "relays" array: not an Onionoo details document/],
    ['only relays without the Exit flag', JSON.stringify({ relays: [{ or_addresses: ['91.66.247.27:9006'], flags: ['Fast', 'Running'] }] }), /holds no address range in the onionoo-json format/],
    ['an OR address without its port', JSON.stringify({ relays: [{ or_addresses: ['185.220.101.1'] }] }), /1 of 1 entries are malformed \(e.g. “185.220.101.1”\)/],
    ['a bracketless IPv6 OR address', JSON.stringify({ relays: [{ or_addresses: ['2a0b:f4c2::1:9001'] }] }), /1 of 1 entries are malformed/],
    ['a prefix where an address belongs', JSON.stringify({ relays: [{ exit_addresses: ['185.220.101.0/24'] }] }), /1 of 1 entries are malformed \(e.g. “185.220.101.0\/24”\)/],
    ['a relay that is not an object', JSON.stringify({ relays: [null] }), /1 of 1 entries are malformed \(e.g. “null”\)/],
    ['flags that are not a list', JSON.stringify({ relays: [{ or_addresses: ['185.220.101.1:9001'], flags: 'Exit' }] }), /1 of 1 entries are malformed/],
    ['a relay with no address', JSON.stringify({ relays: [{ flags: ['Exit'] }] }), /1 of 1 entries are malformed/],
  ] as const)('refuses %s', (what, text, why) => {
    expect(() => parseFeed('onionoo-json', bytes(text), 'onionoo')).toThrow(why);
    try {
      parseFeed('onionoo-json', bytes(text), 'onionoo');
    } catch (err) {
      expect(err).toMatchObject({ code: 'feed_invalid' });
    }
  });
});
