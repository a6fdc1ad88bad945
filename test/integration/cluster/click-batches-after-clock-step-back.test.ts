// Cluster mode: click batches carry sequence numbers made of the wall clock
// (store/stats-store.ts), and PostgreSQL adds a batch only when its sequence
// is newer than the writer's last (click_flushes). A node whose clock was
// stepped back (NTP correcting a clock that ran ahead, a VM restored from a
// snapshot) and that restarts still has its clicks counted: its first
// batches are numbered above the last one taken. Before, both were
// acknowledged and counted nowhere (5 stored instead of 12).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { DayCounts } from '../../../src/store/backend.js';
import { openStores, type Stores } from '../../../src/store/db.js';
import { PgBackend } from '../../../src/store/pg/backend.js';
import { createPool, type Pool } from '../../../src/store/pg/client.js';
import { migrate } from '../../../src/store/pg/migrations.js';
import { Replica } from '../../../src/store/pg/replica.js';
import { Stats, zeroDay } from '../../../src/store/stats-store.js';
import { postgresBin, startPostgres, type TestPostgres } from '../../helpers/postgres.js';

const skip = postgresBin() === null;
let pg: TestPostgres;
let dir: string;
let stores: Stores;
const pools: Pool[] = [];
beforeAll(async () => {
  if (skip) return;
  pg = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), 'sg-clicks-clock-'));
  stores = openStores(dir);
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const p of pools) await p.end().catch(() => {});
  await stores?.root.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  pg?.close();
});

function pool(name: string): Pool {
  const p = createPool(pg.url, name, 2);
  pools.push(p);
  return p;
}
const backend = () => new PgBackend(pool('test'), new Replica(stores, pool('replica')), 'test', () => true);
const day = (clicks: number): DayCounts => ({ routeId: 1, day: 20_416, counts: { ...zeroDay(), clicks, a: clicks } });
const stored = async () => Number((await pg.query<{ clicks: string }>('SELECT clicks FROM route_days WHERE route_id = 1'))[0]?.clicks ?? 0);

it.skipIf(skip)('a node restarted after its clock stepped back 10 s still has its clicks counted', async () => {
  await migrate(pool('migrate'));
  const writer = { name: 'node-a/1', slot: 1 };
  const T = Date.now();
  const now = vi.spyOn(Date, 'now').mockReturnValue(T);
  await new Stats(backend(), stores, writer).add([day(5)]);
  expect(await stored()).toBe(5);

  // The clock is stepped back 10 seconds; the node restarts (its memory, and its last sequence, are gone).
  now.mockReturnValue(T - 10_000);
  const restarted = new Stats(backend(), stores, writer);
  await restarted.add([day(3)]); // acknowledged: drain resolved, nothing queued
  expect(restarted.queuedDays).toBe(0);
  now.mockReturnValue(T - 9_000);
  await restarted.add([day(4)]);
  expect(await stored()).toBe(12);
});
