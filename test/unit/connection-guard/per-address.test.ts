// Per-address cap: more connections than the cap from one address lose the
// excess, idlest first (longest since the client last sent data); other
// addresses, connections still in the listen queue (inode 0) and addresses
// inside the trusted proxies are left alone.
import { expect, it } from 'vitest';
import { parseCidr } from '../../../src/config.js';
import { ConnectionGuard } from '../../../src/http/connection-guard.js';
import { conn, NO_LIMITS } from './conn.js';

it('sheds the excess from one address, idlest first', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 3 });
  const attacker = [50, 9000, 10, 7000, 300, 8000].map((ms) => conn('203.0.113.9', { lastReceiveMs: ms }));
  const others = [conn('198.51.100.1', { lastReceiveMs: 99_999 }), conn('198.51.100.2'), conn('2001:db8::1')];
  const r = guard.tick([...others, ...attacker], 0);
  expect(r.connections).toBe(9);
  expect(r.shed.per_address.sort()).toEqual([attacker[1].inode, attacker[3].inode, attacker[5].inode].sort());
  expect(r.shed.global).toEqual([]);
  expect(r.shed.not_reading).toEqual([]);
});

it('counts exactly the cap as allowed', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 3 });
  const r = guard.tick([conn('203.0.113.9'), conn('203.0.113.9'), conn('203.0.113.9')], 0);
  expect(r.shed.per_address).toEqual([]);
});

it('breaks ties between equally idle connections by age (smaller inode first)', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 1 });
  const list = [conn('203.0.113.9', { inode: 7 }), conn('203.0.113.9', { inode: 5 }), conn('203.0.113.9', { inode: 6 })];
  expect(guard.tick(list, 0).shed.per_address).toEqual([5, 6]);
});

it('neither counts nor sheds connections not accepted yet', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 2 });
  const held = [conn('203.0.113.9'), conn('203.0.113.9')];
  const queued = [conn('203.0.113.9', { inode: 0, lastReceiveMs: 50_000 }), conn('203.0.113.9', { inode: 0 })];
  const r = guard.tick([...held, ...queued], 0);
  expect(r.connections).toBe(2);
  expect(r.shed.per_address).toEqual([]);
});

it('exempts addresses inside the trusted proxies, IPv4 and IPv6', () => {
  const trusted = [parseCidr('10.0.0.0/8')!, parseCidr('fd00::/8')!];
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 2, trusted });
  const list = [
    ...Array.from({ length: 5 }, () => conn('10.1.2.3')),
    ...Array.from({ length: 5 }, () => conn('fd00::7')),
    ...Array.from({ length: 5 }, () => conn('11.1.2.3')),
  ];
  const r = guard.tick(list, 0);
  expect(r.shed.per_address).toHaveLength(3);
  const shedAddresses = new Set(list.filter((c) => r.shed.per_address.includes(c.inode)).map((c) => c.address));
  expect([...shedAddresses]).toEqual(['11.1.2.3']);
});

it('does nothing with a cap of 0', () => {
  const guard = new ConnectionGuard(NO_LIMITS);
  const r = guard.tick(Array.from({ length: 1000 }, () => conn('203.0.113.9')), 0);
  expect(r.shed).toEqual({ per_address: [], global: [], not_reading: [] });
});
