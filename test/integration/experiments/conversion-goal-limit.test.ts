// A route counts at most GOAL_LIMIT (20) conversion goals. A click id
// converts once per goal, so without the bound one client could give a route
// any number of goals, and the route's detail computes statistics for each.
// A conversion naming a 21st goal is 400 invalid_parameter naming its goal
// (in a batch, that entry alone); goals the route has go on counting; the
// bound holds when new goals race on both threads; another route has its own.
// The default goal is not among the 20: a conversion that names no goal is
// counted on a route that has 20 others (contract §10: goal defaults to
// "conversion", 202).
import { expect, it } from 'vitest';
import { api, inParallel, NO_RATE_LIMIT, useRedirectServer, visitorId } from '../../helpers/routes.js';

const LIMIT = 20;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

async function newRoute(): Promise<{ id: number; code: string }> {
  const r = await api(sg.server, 'POST', '/v1/routes', {
    name: 'goals', variants: [{ url: 'https://a.example.com/', weight: 1 }, { url: 'https://b.example.com/', weight: 1 }],
    append_click_id: true, intercept_level: 'off',
  });
  expect(r.status, r.body).toBe(201);
  return r.json;
}

async function clickId(code: string): Promise<string> {
  const v = await sg.client.visit(code, { visitor: visitorId() });
  return /sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1];
}

it('a batch naming 25 new goals counts 20; each of the other 5 is refused naming its goal', async () => {
  const route = await newRoute();
  const id = await clickId(route.code);
  const r = await api(sg.server, 'POST', '/v1/conversions', { conversions: Array.from({ length: 25 }, (_, i) => ({ click_id: id, goal: `g${i}` })) });
  expect(r.status, r.body).toBe(200);
  const results = r.json.results as Record<string, unknown>[];
  expect(results.slice(0, LIMIT).every((x) => x.duplicate === false && typeof x.goal === 'string')).toBe(true);
  results.slice(LIMIT).forEach((x, k) => expect(x).toMatchObject({ code: 'invalid_parameter', field: `conversions[${LIMIT + k}].goal` }));

  // A goal the route has still counts, for another visitor; a new one alone is 400 naming goal.
  const other = await clickId(route.code);
  expect((await api(sg.server, 'POST', '/v1/conversions', { click_id: other, goal: 'g7' })).status).toBe(202);
  const refused = await api(sg.server, 'POST', '/v1/conversions', { click_id: other, goal: 'one-more' });
  expect(refused.status).toBe(400);
  expect(refused.json).toMatchObject({ code: 'invalid_parameter', field: 'goal' });
  expect(refused.json.error).toContain('20 goals');

  const detail = await api(sg.server, 'GET', `/v1/routes/${route.id}`);
  const goals = detail.json.experiment.lifetime.goals as string[];
  expect(goals.filter((g) => g !== 'conversion').sort()).toEqual(Array.from({ length: LIMIT }, (_, i) => `g${i}`).sort());
});

it('new goals racing on both threads: exactly 20 are counted', async () => {
  const route = await newRoute();
  const id = await clickId(route.code);
  const answers = await inParallel(Array.from({ length: 60 }, (_, i) => i), 60, (i) => api(sg.server, 'POST', '/v1/conversions', { click_id: id, goal: `race-${i}` }, { thread: i % 2 }));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 202).length, JSON.stringify(statuses)).toBe(LIMIT);
  expect(statuses.filter((s) => s === 400).length).toBe(60 - LIMIT);
  const detail = await api(sg.server, 'GET', `/v1/routes/${route.id}`);
  expect((detail.json.experiment.lifetime.goals as string[]).filter((g) => g !== 'conversion')).toHaveLength(LIMIT);
});

it('the bound is per route: a full route leaves another route its own 20', async () => {
  const full = await newRoute();
  const id = await clickId(full.code);
  await api(sg.server, 'POST', '/v1/conversions', { conversions: Array.from({ length: LIMIT }, (_, i) => ({ click_id: id, goal: `f${i}` })) });
  const fresh = await newRoute();
  const r = await api(sg.server, 'POST', '/v1/conversions', { click_id: await clickId(fresh.code), goal: 'f-new' });
  expect(r.status, r.body).toBe(202);
});

it('a conversion naming no goal counts on a route that has 20 others, before and after them', async () => {
  const route = await newRoute();
  const first = await clickId(route.code);
  const full = await api(sg.server, 'POST', '/v1/conversions', { conversions: Array.from({ length: LIMIT }, (_, i) => ({ click_id: first, goal: `h${i}` })) });
  expect((full.json.results as Record<string, unknown>[]).every((x) => x.duplicate === false)).toBe(true);
  const r = await api(sg.server, 'POST', '/v1/conversions', { click_id: first });
  expect(r.status, r.body).toBe(202);
  expect(r.json).toMatchObject({ goal: 'conversion', duplicate: false });
  // With the default goal stored, the route still takes no 21st of its own.
  const refused = await api(sg.server, 'POST', '/v1/conversions', { click_id: await clickId(route.code), goal: 'h-more' });
  expect(refused.status).toBe(400);
  expect(refused.json.error).toContain('besides "conversion"');
  const detail = await api(sg.server, 'GET', `/v1/routes/${route.id}`);
  expect((detail.json.experiment.lifetime.goals as string[]).sort()).toEqual(['conversion', ...Array.from({ length: LIMIT }, (_, i) => `h${i}`)].sort());
});

it('a route whose first conversion named no goal still takes 20 others', async () => {
  const route = await newRoute();
  const id = await clickId(route.code);
  expect((await api(sg.server, 'POST', '/v1/conversions', { click_id: id })).status).toBe(202);
  const r = await api(sg.server, 'POST', '/v1/conversions', { conversions: Array.from({ length: LIMIT + 1 }, (_, i) => ({ click_id: id, goal: `k${i}` })) });
  const results = r.json.results as Record<string, unknown>[];
  expect(results.slice(0, LIMIT).every((x) => x.duplicate === false)).toBe(true);
  expect(results[LIMIT]).toMatchObject({ code: 'invalid_parameter', field: `conversions[${LIMIT}].goal` });
});
