// Not reading: a connection with data in its send queue whose client has
// acknowledged nothing for stallMs is shed. The clock starts at the first
// tick that sees the queue non-empty and restarts whenever bytes_acked moves;
// the state is dropped when the queue drains or the connection disappears.
import { expect, it } from 'vitest';
import { ConnectionGuard } from '../../../src/http/connection-guard.js';
import { conn, NO_LIMITS } from './conn.js';

const STALL = 10_000;

it('sheds a connection whose acknowledgements stop for the stall time, across ticks', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  const stuck = conn('203.0.113.9', { inode: 1, sendQueue: 4_000_000, bytesAcked: 500 });
  const reader = (acked: number) => conn('198.51.100.1', { inode: 2, sendQueue: 900_000, bytesAcked: acked });
  const idle = conn('198.51.100.2', { inode: 3, sendQueue: 0, bytesAcked: 800 });
  for (let t = 0; t < STALL; t += 1000) {
    const r = guard.tick([stuck, reader(1000 + t), idle], t);
    expect(r.shed.not_reading).toEqual([]);
  }
  expect(guard.tick([stuck, reader(99_000), idle], STALL).shed.not_reading).toEqual([1]);
});

it('restarts the clock when the client acknowledges something', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  const at = (acked: number) => conn('203.0.113.9', { inode: 1, sendQueue: 100, bytesAcked: acked });
  guard.tick([at(10)], 0);
  guard.tick([at(11)], 9_000);
  expect(guard.tick([at(11)], 18_000).shed.not_reading).toEqual([]);
  expect(guard.tick([at(11)], 19_000).shed.not_reading).toEqual([1]);
});

it('restarts the clock after the queue drains', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  guard.tick([conn('203.0.113.9', { inode: 1, sendQueue: 100 })], 0);
  guard.tick([conn('203.0.113.9', { inode: 1, sendQueue: 0 })], 5_000);
  expect(guard.tracked).toBe(0);
  guard.tick([conn('203.0.113.9', { inode: 1, sendQueue: 100 })], 6_000);
  expect(guard.tick([conn('203.0.113.9', { inode: 1, sendQueue: 100 })], 12_000).shed.not_reading).toEqual([]);
  expect(guard.tick([conn('203.0.113.9', { inode: 1, sendQueue: 100 })], 16_000).shed.not_reading).toEqual([1]);
});

it('prunes the state of connections that are gone', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  const list = Array.from({ length: 50 }, () => conn('203.0.113.9', { sendQueue: 100 }));
  guard.tick(list, 0);
  expect(guard.tracked).toBe(50);
  guard.tick(list.slice(0, 10), 1000);
  expect(guard.tracked).toBe(10);
  guard.tick([], 2000);
  expect(guard.tracked).toBe(0);
});

it('starts afresh when an inode number comes back for another peer', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  guard.tick([conn('203.0.113.9', { inode: 1, port: 5000, sendQueue: 100 })], 0);
  expect(guard.tick([conn('198.51.100.1', { inode: 1, port: 6000, sendQueue: 100 })], STALL).shed.not_reading).toEqual([]);
});

it('ignores connections without tcp_info and is off at 0', () => {
  const off = new ConnectionGuard(NO_LIMITS);
  const noInfo = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL });
  const c = conn('203.0.113.9', { inode: 1, sendQueue: 100 });
  const d = conn('203.0.113.9', { inode: 2, sendQueue: 100, bytesAcked: -1, lastReceiveMs: -1 });
  for (const t of [0, STALL, 2 * STALL]) {
    expect(off.tick([c], t).shed.not_reading).toEqual([]);
    expect(noInfo.tick([d], t).shed.not_reading).toEqual([]);
  }
  expect(off.tracked).toBe(0);
});

it('sheds a stalled connection once, under not_reading, even when it is also over the per-address cap', () => {
  const guard = new ConnectionGuard({ ...NO_LIMITS, stallMs: STALL, perAddress: 1 });
  const stuck = conn('203.0.113.9', { inode: 1, sendQueue: 100, lastReceiveMs: 50_000 });
  const fresh = conn('203.0.113.9', { inode: 2, lastReceiveMs: 1 });
  guard.tick([stuck, fresh], 0);
  const r = guard.tick([stuck, fresh], STALL);
  expect(r.shed.not_reading).toEqual([1]);
  expect(r.shed.per_address).toEqual([]);
});
