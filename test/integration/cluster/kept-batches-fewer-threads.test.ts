// Cluster mode: batches a thread kept at its stop (PostgreSQL away) are sent
// even when the node comes back with fewer threads: the first thread finds
// the slots no thread of the run has (Storage.leftBehind) and sends their
// click and visit batches under those slots' own writer names, once.
// Before, a slot without a thread was never read again.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { zeroDay } from '../../../src/store/stats-store.js';
import { openStorage } from '../../../src/store/storage.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-kept-slots-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-kept-slots-node-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 20_500;
const settings = (slot: number) => ({ databaseUrl: fixture.pg.url, nodeName: 'n', slot, poolSize: 2, connected: () => true });

it.skipIf(fixture.skip)("sends the kept batches of a slot that has no thread any more under that slot's names", async () => {
  // A run of three threads: the third one stops while PostgreSQL is away.
  const third = await openStorage(dir, { cluster: settings(3) });
  fixture.pg.stop();
  third.stats.enqueue([{ routeId: 1, day: DAY, counts: { ...zeroDay(), clicks: 4, a: 4 } }]);
  await expect(third.stats.drain()).rejects.toMatchObject({ code: 'storage_unavailable' });
  expect(third.stats.keepQueued()).toBe(1);
  expect(third.experiments.keepVisits([{ seq: null, visits: [{ routeId: 1, day: DAY, clicks: [2, 1], sketches: [null, null] }] }])).toBe(3);
  await third.close();
  fixture.pg.start();

  // The next run has one thread.
  const first = await openStorage(dir, { cluster: settings(1) });
  try {
    const left = first.leftBehind(1);
    expect(left.map((w) => w.slot)).toEqual([3]);
    for (const w of left) {
      await w.stats.drain();
      await w.experiments.sendKeptVisits();
    }
    expect(first.leftBehind(1)).toEqual([]);
    const clicks = await fixture.pg.query<{ clicks: number }>('SELECT clicks::int FROM route_days WHERE route_id = 1 AND day = $1', [DAY]);
    expect(clicks.map((r) => r.clicks)).toEqual([4]);
    const variants = await fixture.pg.query<{ clicks: number[] }>('SELECT clicks FROM variant_days WHERE route_id = 1 AND day = $1', [DAY]);
    expect(variants[0].clicks.slice(0, 2)).toEqual([2, 1]);
    const writers = await fixture.pg.query<{ node: string }>('SELECT node FROM click_flushes ORDER BY node');
    expect(writers.map((r) => r.node)).toEqual(['n/3', 'n/3/visits']);
  } finally {
    await first.close();
  }
});
