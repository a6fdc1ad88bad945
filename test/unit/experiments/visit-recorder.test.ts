// The per-thread visit recorders (src/experiments/visits.ts) over a real
// LMDB store: two recorders (two threads) count the same visitors on one
// route and day, flush several times (re-sending registers they already
// sent), and the store ends with the exact clicks per variant, one visitor
// counted once however many threads and flushes saw it, and the lifetime
// sketch equal to the day's. A recorder with nothing new drops its sketches.
import { expect, it } from 'vitest';
import { useExperimentsStore } from '../../helpers/experiments-store.js';
import { Hll } from '../../../src/experiments/hll.js';
import { SipHash } from '../../../src/experiments/siphash.js';
import { VisitRecorder } from '../../../src/experiments/visits.js';

const experiments = useExperimentsStore('sg-visits-');

it('adds clicks exactly and merges sketches across threads and repeated flushes', async () => {
  const sip = new SipHash(new Uint8Array(16).fill(3));
  const threads = [new VisitRecorder(experiments), new VisitRecorder(experiments)];
  const ROUTE = 5;
  const DAY = 20_415;
  const clicks = [0, 0, 0];
  const bytes = new Uint8Array(8);
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 3000; i++) {
      // 3,000 visitors, each seen in every round, on either thread, variant i % 3.
      new DataView(bytes.buffer).setUint32(0, i);
      sip.hash(bytes, 8);
      threads[(i + round) % 2].record(ROUTE, DAY, i % 3, sip.hi, sip.lo);
      clicks[i % 3]++;
    }
    await Promise.all(threads.map((t) => t.flush()));
  }
  const days = await experiments.variantDays(ROUTE, DAY, DAY);
  expect(days.get(DAY)!.slice(0, 3)).toEqual(clicks);
  const sketches = await experiments.sketches(ROUTE, [0, DAY]);
  for (let v = 0; v < 3; v++) {
    const day = Hll.deserialize(sketches.get(DAY)![v]!);
    expect(Math.abs(day.estimate() - 1000)).toBeLessThan(20);
    expect(Buffer.from(Hll.deserialize(sketches.get(0)![v]!).registers).equals(Buffer.from(day.registers))).toBe(true);
  }
  // Nothing new: a flush writes nothing and the clicks stay as they are.
  await Promise.all(threads.map((t) => t.flush()));
  await Promise.all(threads.map((t) => t.flush()));
  expect((await experiments.variantDays(ROUTE, DAY, DAY)).get(DAY)!.slice(0, 3)).toEqual(clicks);
});
