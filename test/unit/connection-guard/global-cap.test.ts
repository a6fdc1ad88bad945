// Global cap: more held connections than the cap lose the idlest ones, down
// to exactly the cap, whatever their addresses (trusted proxies included:
// the cap protects the process's descriptors). Connections another rule
// already picked count as gone.
import { expect, it } from 'vitest';
import { parseCidr } from '../../../src/config.js';
import { ConnectionGuard } from '../../../src/http/connection-guard.js';
import { conn, NO_LIMITS } from './conn.js';

it('sheds the idlest connections down to the cap', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, global: 4, trusted: [parseCidr('10.0.0.0/8')!] });
  const list = [
    conn('10.0.0.1', { lastReceiveMs: 60_000 }),
    conn('198.51.100.1', { lastReceiveMs: 5 }),
    conn('198.51.100.2', { lastReceiveMs: 40_000 }),
    conn('198.51.100.3', { lastReceiveMs: 7 }),
    conn('2001:db8::3', { lastReceiveMs: 20_000 }),
    conn('198.51.100.4', { lastReceiveMs: 9 }),
  ];
  const r = guard.tick(list, 0);
  expect(r.connections).toBe(6);
  expect(r.shed.global).toEqual([list[0].inode, list[2].inode]);
});

it('leaves a list at the cap alone', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, global: 3 });
  expect(guard.tick([conn('198.51.100.1'), conn('198.51.100.2'), conn('198.51.100.3')], 0).shed.global).toEqual([]);
});

it('counts connections shed by the per-address cap as gone', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 2, global: 5 });
  const flood = Array.from({ length: 6 }, (_, i) => conn('203.0.113.9', { lastReceiveMs: 1000 + i }));
  const others = Array.from({ length: 4 }, (_, i) => conn(`198.51.100.${i + 1}`, { lastReceiveMs: i }));
  const r = guard.tick([...flood, ...others], 0);
  // 10 held, 4 over the per-address cap, leaving 6: one more goes globally (the idlest remaining).
  expect(r.shed.per_address).toHaveLength(4);
  expect(r.shed.global).toEqual([flood[1].inode]);
  expect(new Set([...r.shed.per_address, ...r.shed.global]).size).toBe(5);
});
