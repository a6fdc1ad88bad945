// The lifetime sample-ratio check after a weight change counts at most the
// last 28 days with visits (src/experiments/report.ts SRM_DAYS): a detail
// request reads and merges a sketch per day and variant for it, and a route
// long past its last change made that unbounded (112 ms and 95 MB of reads a
// request after a year, in the tenant attack review). Here 40 days follow
// the change: the first 12 send every visitor to a (a broken split), the
// last 28 split evenly. The report reads 36 days of sketches at most (the
// lifetime's, the window's 7 and the last 28) and its lifetime check sees
// the even days only. Before, it read all 40 and alarmed on the old ones.
import { expect, it } from 'vitest';
import { twoVariantRoute, useExperimentsStore, visitorsSketch } from '../../helpers/experiments-store.js';
import { experimentReport } from '../../../src/experiments/report.js';

const experiments = useExperimentsStore('sg-report-srm-days-');
const TODAY = 20_415;
const CHANGED = TODAY - 40;

it('counts the last 28 days after a change, and reads no more', async () => {
  for (let d = 1; d <= 40; d++) {
    const day = CHANGED + d;
    const base = d * 10_000;
    // A broken split for 12 days (200 on a), then 100 on each.
    const sketches = d <= 12 ? [visitorsSketch(base, base + 200).serialize(), null] : [visitorsSketch(base, base + 100).serialize(), visitorsSketch(base + 5000, base + 5100).serialize()];
    await experiments.addVisits([{ routeId: 9, day, clicks: d <= 12 ? [200, 0] : [100, 100], sketches }], await experiments.nextVisitBatch());
  }
  const read = new Set<number>();
  const sketches = experiments.sketches.bind(experiments);
  experiments.sketches = (routeId, days) => {
    for (const d of days) read.add(d);
    return sketches(routeId, days);
  };
  const report = await experimentReport(experiments, twoVariantRoute(9, CHANGED - 10, TODAY, CHANGED), TODAY);
  expect(read.size).toBeLessThanOrEqual(1 + 7 + 28);
  expect(report.lifetime.srm.alert).toBe(false);
});
