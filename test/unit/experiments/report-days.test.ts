// The experiment report's days (src/experiments/report.ts) over a real LMDB
// store: the 7-day window against the lifetime, a visitor seen on several
// days counted once, conversions counted on their click's day, and the SRM
// check counting only days after the last weight change.
import { expect, it } from 'vitest';
import { twoVariantRoute, useExperimentsStore, visitorsSketch } from '../../helpers/experiments-store.js';
import { RELATIVE_ERROR } from '../../../src/experiments/hll.js';
import { experimentReport } from '../../../src/experiments/report.js';
import { srm } from '../../../src/experiments/stats.js';
import { DAY_MS } from '../../../src/days.js';

const experiments = useExperimentsStore('sg-report-');

const TODAY = 20_415;
const route = (weightsChangedAt?: number) => twoVariantRoute(9, TODAY - 20, TODAY, weightsChangedAt);

/** Visitors [from, to) of a variant on a day, as a flush would send them. */
async function visit(day: number, variant: number, from: number, to: number): Promise<void> {
  const h = visitorsSketch(from, to);
  const clicks = [0, 0];
  clicks[variant] = to - from;
  const sketches: (Uint8Array | null)[] = [null, null];
  sketches[variant] = h.serialize();
  await experiments.addVisits([{ routeId: 9, day, clicks, sketches }], await experiments.nextVisitBatch());
}

it('separates the window from the lifetime and counts a returning visitor once', async () => {
  // 10 days ago: 100 visitors on a; today and yesterday: the same 50 visitors on b (and 50 new ones today on a).
  await visit(TODAY - 10, 0, 0, 100);
  await visit(TODAY - 1, 1, 1000, 1050);
  await visit(TODAY, 1, 1000, 1050);
  await visit(TODAY, 0, 2000, 2050);
  await experiments.addConversions([
    { routeId: 9, accountId: 1, goal: 'signup', visitor: '0000000000000001', variant: 0, day: TODAY - 10, at: 0, value: null },
    { routeId: 9, accountId: 1, goal: 'signup', visitor: '0000000000000002', variant: 1, day: TODAY, at: 0, value: 5 },
  ]);
  const report = await experimentReport(experiments, route(), TODAY);
  expect(report.window).toEqual({ from: new Date((TODAY - 6) * DAY_MS).toISOString().slice(0, 10), to: new Date(TODAY * DAY_MS).toISOString().slice(0, 10) });
  expect(report.goals).toEqual(['conversion', 'signup']);
  expect(report.variants.map((v) => v.visitors)).toEqual([50, 50]);
  expect(report.variants.map((v) => v.clicks)).toEqual([50, 100]);
  expect(report.variants.map((v) => v.conversions.signup.count)).toEqual([0, 1]);
  expect(report.lifetime.variants.map((v) => v.visitors)).toEqual([150, 50]);
  expect(report.lifetime.variants.map((v) => v.clicks)).toEqual([150, 100]);
  expect(report.lifetime.variants.map((v) => v.conversions.signup.count)).toEqual([1, 1]);
  expect(report.srm.p_value).toBeCloseTo(srm([50, 50], [1, 1], RELATIVE_ERROR).p_value!, 6);
  expect(report.lifetime.srm.p_value).toBeCloseTo(srm([150, 50], [1, 1], RELATIVE_ERROR).p_value!, 6);
});

it('counts the SRM check only from the day after the weights changed', async () => {
  // Changed yesterday: only today's visitors (50 on a, 50 on b) are compared.
  const changedYesterday = await experimentReport(experiments, route(TODAY - 1), TODAY);
  expect(changedYesterday.srm.p_value).toBeCloseTo(srm([50, 50], [1, 1], RELATIVE_ERROR).p_value!, 6);
  expect(changedYesterday.lifetime.srm.p_value).toBeCloseTo(srm([50, 50], [1, 1], RELATIVE_ERROR).p_value!, 6);
  // Changed today: nothing to compare yet.
  const changedToday = await experimentReport(experiments, route(TODAY), TODAY);
  expect(changedToday.srm).toEqual({ p_value: null, alert: false });
  expect(changedToday.lifetime.srm).toEqual({ p_value: null, alert: false });
  // The other figures do not depend on it.
  expect(changedToday.lifetime.variants.map((v) => v.visitors)).toEqual([150, 50]);
});
