// The per-address cap counts an IPv6 client by its /64, as the per-address
// limits do (one host may use any address of its /64): connections from
// many addresses of one /64 share one cap, a neighbouring /64 has its own,
// and IPv4 addresses keep one cap each. Before, each exact IPv6 address had
// a cap of its own: five addresses of one /64 held five caps' worth.
import { expect, it } from 'vitest';
import { ConnectionGuard } from '../../../src/http/connection-guard.js';
import { conn } from './conn.js';
import { NO_LIMITS } from './conn.js';

it('caps the addresses of one IPv6 /64 together, idlest first', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, perAddress: 3 });
  const prefix = [1, 2, 3, 4, 5].map((n, i) => conn(`2001:db8:1:2::${n}`, { lastReceiveMs: 1000 * (i + 1) }));
  const neighbour = [conn('2001:db8:1:3::1'), conn('2001:db8:1:3::2'), conn('2001:db8:1:3::3')];
  const ipv4 = [conn('203.0.113.1'), conn('203.0.113.2'), conn('203.0.113.3'), conn('203.0.113.4')];
  const r = guard.tick([...prefix, ...neighbour, ...ipv4], 0);
  expect(r.shed.per_address.sort()).toEqual([prefix[3].inode, prefix[4].inode].sort());
});
