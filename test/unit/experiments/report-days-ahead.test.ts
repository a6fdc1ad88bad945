// Visits and conversions stored under days after today (counted while the
// wall clock ran ahead, then stepped back: NTP, a restored VM) stay in the
// experiment's lifetime figures, and out of its 7-day window. Before, the
// lifetime read days up to today only, and they vanished until the clock
// caught up.
import { expect, it } from 'vitest';
import { useExperimentsStore } from '../../helpers/experiments-store.js';
import { Hll } from '../../../src/experiments/hll.js';
import { experimentReport } from '../../../src/experiments/report.js';
import type { Route } from '../../../src/store/routes-store.js';
import { DAY_MS } from '../../../src/days.js';

const experiments = useExperimentsStore('sg-report-ahead-');

const TODAY = 20_415;
const AHEAD = TODAY + 365;
const iso = (day: number) => new Date(day * DAY_MS + 3_600_000).toISOString();
const route: Route = {
  id: 4, accountId: 1, code: 'AAAAAAAB', name: 'r', pageA: 'https://a.example/', pageB: 'https://b.example/', splitRatio: 0.5,
  defaultGroup: 'a', interceptLevel: 'off', variants: [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }],
  status: 'active', createdAt: iso(TODAY - 20), updatedAt: iso(TODAY),
};

it('keeps visits and conversions of days after today in the lifetime, not in the window', async () => {
  const h = new Hll();
  for (let i = 0; i < 40; i++) h.add(Math.imul(i + 1, 0x9e3779b1) >>> 0, Math.imul(i + 7, 0x85ebca6b) >>> 0);
  await experiments.addVisits([{ routeId: 4, day: AHEAD, clicks: [40, 0], sketches: [h.serialize(), null] }], await experiments.nextVisitBatch());
  await experiments.addConversions([{ routeId: 4, goal: 'signup', visitor: '0000000000000009', variant: 0, day: AHEAD, at: 0, value: null }]);

  const report = await experimentReport(experiments, route, TODAY);
  expect(report.lifetime.variants.map((v) => v.clicks)).toEqual([40, 0]);
  expect(report.lifetime.variants.map((v) => v.conversions.signup.count)).toEqual([1, 0]);
  expect(report.variants.map((v) => v.clicks)).toEqual([0, 0]);
});
