// A variant with conversions but no visitors yet (conversions are answered
// once committed; the redirect's visits reach the store up to a second later)
// has no statistics in the experiment report: count as counted, and null
// rate, interval, lift, p-value and probability of being best, as docs/api.md
// says. Before, its denominator was its own count: a rate of 1 and a
// "significant" lift from nothing.
import { expect, it } from 'vitest';
import { twoVariantRoute, useExperimentsStore, visitorsSketch } from '../../helpers/experiments-store.js';
import { experimentReport } from '../../../src/experiments/report.js';

const experiments = useExperimentsStore('sg-report-');

const TODAY = 20_415;
const route = twoVariantRoute(3, TODAY - 2, TODAY);

it('gives a variant without visitors no rate, interval, lift, p-value or probability', async () => {
  const a = visitorsSketch(0, 100);
  await experiments.addVisits([{ routeId: 3, day: TODAY, clicks: [100, 0], sketches: [a.serialize(), null] }], await experiments.nextVisitBatch());
  const conversion = (visitor: string, variant: number) => ({ routeId: 3, accountId: 1, goal: 'signup', visitor, variant, day: TODAY, at: 0, value: null });
  await experiments.addConversions([
    ...Array.from({ length: 10 }, (_, i) => conversion(`a${String(i).padStart(15, '0')}`, 0)),
    ...Array.from({ length: 3 }, (_, i) => conversion(`b${String(i).padStart(15, '0')}`, 1)),
  ]);
  const report = await experimentReport(experiments, route, TODAY);
  const [va, vb] = report.variants;
  expect(vb.visitors).toBe(0);
  expect(vb.conversions.signup).toEqual({ count: 3, rate: null, ci95: null, lift: null, lift_ci95: null, p_value: null, prob_best: null });
  expect(va.conversions.signup).toMatchObject({ count: 10, rate: 0.1, prob_best: 1 });
});
