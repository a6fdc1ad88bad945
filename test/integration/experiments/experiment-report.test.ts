// The experiment object of GET /v1/routes/<id>, end to end: real redirects
// (returning visitors with known ids, some visiting twice, and intercepted
// visits that must not count), real conversions through click ids; the
// answer's visitors (HyperLogLog, within 2 %), clicks and conversion counts
// match what was sent, the rates and intervals are the statistics module's
// on those counts, and the SRM check stays quiet for a fair split and alarms
// when one arm's visitors are held back.
import { expect, it } from 'vitest';
import { RELATIVE_ERROR } from '../../../src/experiments/hll.js';
import { relativeLift, srm, wilson, zTestPValue } from '../../../src/experiments/stats.js';
import { bucket } from '../../../src/redirect/visitor.js';
import { api, inParallel, NO_RATE_LIMIT, TRUST_LOOPBACK, useRedirectServer, waitUntil } from '../../helpers/routes.js';

const DATACENTER = '8.8.8.8'; // Google, AS15169: on the built-in blacklist at level low
const sg = useRedirectServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });

/** Deterministic 22-character visitor ids. */
const idOf = (seed: string, i: number) => `${seed}${String(i).padStart(22 - seed.length, '0')}`;
const url = (k: string) => `https://${k}.example.com/`;

async function makeRoute(weights: number[]): Promise<{ id: number; code: string }> {
  const r = await api(sg.server, 'POST', '/v1/routes', {
    name: 'experiment', variants: weights.map((w, i) => ({ url: url('abcdefgh'[i]), weight: w })), append_click_id: true, intercept_level: 'low',
  });
  expect(r.status).toBe(201);
  return r.json;
}

const experimentOf = async (id: number) => (await api(sg.server, 'GET', `/v1/routes/${id}`)).json.experiment;

it('counts visitors, clicks and conversions per variant, and its statistics are those of the counts', async () => {
  const route = await makeRoute([1, 1, 2]);
  const ids = Array.from({ length: 600 }, (_, i) => idOf('rpt', i));
  const truth = { visitors: [0, 0, 0], clicks: [0, 0, 0], conversions: [0, 0, 0] };
  const tokens: string[] = [];
  await inParallel(ids, 16, async (visitor, i) => {
    const times = i % 3 === 0 ? 2 : 1;
    for (let t = 0; t < times; t++) {
      const v = await sg.client.visit(route.code, { visitor, thread: (i + t) % 2 });
      const m = /^https:\/\/([abc])\.example\.com\/\?sg_cid=([A-Za-z0-9_-]+)$/.exec(v.location!);
      expect(m, v.location).not.toBeNull();
      const k = 'abc'.indexOf(m![1]);
      truth.clicks[k]++;
      if (t === 0) {
        truth.visitors[k]++;
        // Variant c converts twice as often as a and b.
        if (i % (k === 2 ? 5 : 10) === 0) {
          tokens.push(m![2]);
          truth.conversions[k]++;
        }
      }
    }
  });
  // Intercepted visits count in no experiment figure.
  for (let i = 0; i < 20; i++) {
    const v = await sg.client.visit(route.code, { visitor: idOf('bot', i), forwardedFor: DATACENTER });
    expect(v.location).not.toContain('sg_cid');
  }
  for (const click_id of tokens) expect((await api(sg.server, 'POST', '/v1/conversions', { click_id })).status).toBe(202);

  const { value: exp } = await waitUntil(() => experimentOf(route.id), (e) => e.variants.reduce((s: number, v: { clicks: number }) => s + v.clicks, 0) === 800, 5000, 100);
  expect(exp.goals).toEqual(['conversion']);
  for (const period of [exp, exp.lifetime]) {
    period.variants.forEach((v: any, k: number) => {
      expect(v.key).toBe('abc'[k]);
      expect(v.clicks).toBe(truth.clicks[k]);
      expect(Math.abs(v.visitors - truth.visitors[k])).toBeLessThanOrEqual(Math.max(2, truth.visitors[k] * 0.02));
      const g = v.conversions.conversion;
      expect(g.count).toBe(truth.conversions[k]);
      expect(g.rate).toBeCloseTo(g.count / v.visitors, 6);
      const ci = wilson(g.count, v.visitors)!;
      expect(g.ci95[0]).toBeCloseTo(ci[0], 6);
      expect(g.ci95[1]).toBeCloseTo(ci[1], 6);
      if (k === 0) {
        expect(g.lift).toBeNull();
        expect(g.p_value).toBeNull();
      } else {
        const a = period.variants[0];
        expect(g.lift).toBeCloseTo(relativeLift(g.count, v.visitors, a.conversions.conversion.count, a.visitors)!.lift, 6);
        expect(g.p_value).toBeCloseTo(zTestPValue(g.count, v.visitors, a.conversions.conversion.count, a.visitors)!, 6);
      }
    });
    const best = period.variants.map((v: any) => v.conversions.conversion.prob_best);
    expect(best.reduce((s: number, p: number) => s + p, 0)).toBeCloseTo(1, 5);
    expect(best[2]).toBeGreaterThan(best[0]);
    // The report's check allows for the sketches' own error (stats.ts srm).
    const check = srm(period.variants.map((v: any) => v.visitors), [1, 1, 2], RELATIVE_ERROR);
    expect(period.srm.p_value).toBeCloseTo(check.p_value!, 6);
  }
  expect(exp.srm.alert).toBe(false);
});

it('raises the SRM alert when one arm\'s visitors are held back', async () => {
  const route = await makeRoute([1, 1]);
  // 300 visitors whose bucket sends them to a, 150 to b: a 2:1 split where 1:1 was asked.
  const toA: string[] = [];
  const toB: string[] = [];
  for (let i = 0; toA.length < 300 || toB.length < 150; i++) {
    const id = idOf('srm', i);
    if (bucket(route.id, id) < 0.5) {
      if (toA.length < 300) toA.push(id);
    } else if (toB.length < 150) toB.push(id);
  }
  await inParallel([...toA, ...toB], 16, (visitor) => sg.client.visit(route.code, { visitor }));
  const { value: exp } = await waitUntil(() => experimentOf(route.id), (e) => e.variants[0].clicks + e.variants[1].clicks === 450, 5000, 100);
  expect(exp.variants.map((v: { clicks: number }) => v.clicks)).toEqual([300, 150]);
  expect(exp.srm.alert).toBe(true);
  expect(exp.srm.p_value).toBeLessThan(0.001);
  expect(exp.lifetime.srm.alert).toBe(true);
});

it('starts the SRM count afresh after a weight change (the change day mixes two splits)', async () => {
  const route = await makeRoute([1, 1]);
  await inParallel(Array.from({ length: 40 }, (_, i) => idOf('chg', i)), 8, (visitor) => sg.client.visit(route.code, { visitor }));
  expect((await api(sg.server, 'PUT', `/v1/routes/${route.id}`, { variants: [{ url: url('a'), weight: 3 }, { url: url('b'), weight: 1 }] })).status).toBe(200);
  const exp = await experimentOf(route.id);
  expect(exp.srm).toEqual({ p_value: null, alert: false });
  expect(exp.lifetime.srm).toEqual({ p_value: null, alert: false });
  expect(exp.variants.map((v: { weight: number }) => v.weight)).toEqual([3, 1]);
});
