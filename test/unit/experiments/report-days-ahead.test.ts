// Visits and conversions stored under days after today (counted while the
// wall clock ran ahead, then stepped back: NTP, a restored VM) stay in the
// experiment's lifetime figures, and out of its 7-day window. Before, the
// lifetime read days up to today only, and they vanished until the clock
// caught up.
import { expect, it } from 'vitest';
import { twoVariantRoute, useExperimentsStore, visitorsSketch } from '../../helpers/experiments-store.js';
import { experimentReport } from '../../../src/experiments/report.js';

const experiments = useExperimentsStore('sg-report-ahead-');

const TODAY = 20_415;
const AHEAD = TODAY + 365;
const route = twoVariantRoute(4, TODAY - 20, TODAY);

it('keeps visits and conversions of days after today in the lifetime, not in the window', async () => {
  const h = visitorsSketch(0, 40);
  await experiments.addVisits([{ routeId: 4, day: AHEAD, clicks: [40, 0], sketches: [h.serialize(), null] }], await experiments.nextVisitBatch());
  await experiments.addConversions([{ routeId: 4, accountId: 1, goal: 'signup', visitor: '0000000000000009', variant: 0, day: AHEAD, at: 0, value: null }]);

  const report = await experimentReport(experiments, route, TODAY);
  expect(report.lifetime.variants.map((v) => v.clicks)).toEqual([40, 0]);
  expect(report.lifetime.variants.map((v) => v.conversions.signup.count)).toEqual([1, 0]);
  expect(report.variants.map((v) => v.clicks)).toEqual([0, 0]);
});
