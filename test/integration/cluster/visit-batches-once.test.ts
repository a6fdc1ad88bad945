// Cluster mode: a thread's per-variant clicks reach PostgreSQL exactly once,
// as its route clicks do (store/batch-sequence.ts), against a real
// PostgreSQL:
// - a batch of visits sent again under its number (its commit taken, the
//   answer lost) is counted once, and an older number not at all;
// - a visit recorder whose write failed after its commit sends that batch
//   again as it was, not its clicks folded into the next one (which counted
//   them twice);
// - a writer restarted with its clock behind the last number taken still
//   has its visits counted.
import { expect, it } from 'vitest';
import { VisitRecorder } from '../../../src/experiments/visits.js';
import { Experiments, type VisitCounts } from '../../../src/store/experiments-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-visits-once-');
const backend = () => fixture.backend();
const DAY = 20_500;
const visits = (routeId: number, a: number, b: number): VisitCounts[] => [{ routeId, day: DAY, clicks: [a, b], sketches: [null, null] }];
const stored = async (routeId: number) =>
  (await fixture.pg.query<{ clicks: number[] }>('SELECT clicks FROM variant_days WHERE route_id = $1 AND day = $2', [routeId, DAY]))[0]?.clicks.slice(0, 2) ?? [0, 0];

it.skipIf(fixture.skip)('counts a batch of visits sent twice once, and an older number not at all', async () => {
  const b = backend();
  await b.addVisits(visits(1, 5, 3), { writer: 'n/0/visits', seq: 10 });
  await b.addVisits(visits(1, 5, 3), { writer: 'n/0/visits', seq: 10 });
  await b.addVisits(visits(1, 7, 7), { writer: 'n/0/visits', seq: 9 });
  expect(await stored(1)).toEqual([5, 3]);
  // Another writer's numbers are its own.
  await b.addVisits(visits(1, 1, 1), { writer: 'n/1/visits', seq: 1 });
  expect(await stored(1)).toEqual([6, 4]);
});

it.skipIf(fixture.skip)('sends a batch whose answer was lost again as it was: its clicks count once', async () => {
  const experiments = new Experiments(backend(), { name: 'r/0/visits', slot: 0, stores: fixture.stores });
  const add = experiments.addVisits.bind(experiments);
  let loseAnswers = 1;
  // The commit is taken, then the connection breaks before its answer.
  experiments.addVisits = async (batch, seq) => {
    await add(batch, seq);
    if (loseAnswers-- > 0) throw new Error('Connection terminated unexpectedly');
  };
  const recorder = new VisitRecorder(experiments);
  for (let i = 0; i < 10; i++) recorder.record(2, DAY, i % 2, i, i);
  await expect(recorder.flush()).rejects.toThrow('Connection terminated');
  for (let i = 0; i < 4; i++) recorder.record(2, DAY, 0, 100 + i, i);
  await recorder.flush();
  expect(await stored(2)).toEqual([9, 5]);
});

it.skipIf(fixture.skip)('counts the visits of a writer restarted with its clock behind its last number taken', async () => {
  // Taken an hour ahead of this clock (the clock ran ahead, then was stepped back).
  await fixture.pg.query("INSERT INTO click_flushes (node, seq) VALUES ('c/0/visits', $1)", [(Date.now() + 3_600_000) * 1000]);
  const recorder = new VisitRecorder(new Experiments(backend(), { name: 'c/0/visits', slot: 1, stores: fixture.stores }));
  for (let i = 0; i < 6; i++) recorder.record(3, DAY, i % 2, i, i);
  await recorder.flush();
  expect(await stored(3)).toEqual([3, 3]);
});
