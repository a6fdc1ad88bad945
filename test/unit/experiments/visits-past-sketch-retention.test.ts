// A visit of a day already past the sketches' retention (a batch a cluster
// node kept at a stop and sends weeks later, a clock stepped back) writes no
// sketch of that day, which the next prune would only delete: its visitors
// go into the lifetime sketch, and its clicks count as always. A day within
// retention gets its own. Before, every day's sketch was written.
import { expect, it } from 'vitest';
import { dayOf } from '../../../src/days.js';
import { Hll } from '../../../src/experiments/hll.js';
import { Experiments } from '../../../src/store/experiments-store.js';
import { LmdbBackend } from '../../../src/store/lmdb-backend.js';
import type { Route } from '../../../src/store/routes-store.js';
import { visitorsSketch } from '../../helpers/experiments-store.js';
import { useLocalStores } from '../../helpers/local-stores.js';

const local = useLocalStores('sg-visits-past-retention-');

it('merges a day past retention into the lifetime sketch only', async () => {
  local.stores.routes.putSync(7, { id: 7, accountId: 1, code: 'route7' } as Route);
  const experiments = new Experiments(new LmdbBackend(local.stores), null, { sketchDays: 90 });
  const today = dayOf(Date.now());
  const old = today - 91;
  const recent = today - 89;
  await experiments.addVisits([
    { routeId: 7, day: old, clicks: [5, 0], sketches: [visitorsSketch(0, 5).serialize(), null] },
    { routeId: 7, day: recent, clicks: [3, 0], sketches: [visitorsSketch(100, 103).serialize(), null] },
  ], 0);
  const stored = await experiments.sketches(7, [0, old, recent]);
  expect([...stored.keys()].sort((x, y) => x - y)).toEqual([0, recent]);
  expect((await experiments.variantDays(7, old, recent)).get(old)).toEqual([5, 0]);
  // The lifetime holds both days' visitors.
  expect(Math.round(Hll.unionEstimate([stored.get(0)![0]!]))).toBe(8);
});
