// GET /v1/routes/<id> returns the route plus stats: a 7-day UTC window
// (from = today - 6, to = today), clicks.daily with 7 entries oldest first
// and zero-filled, groups {a, b}, intercepted, and the five rule_hits keys.
// A fresh route has all zeros; after visits, today's entry carries them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient, routeStats, visitorId, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(async () => {
  await server?.close();
});

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The UTC date `offset` days from `to` (YYYY-MM-DD). */
const from = (to: string, offset: number) => iso(Date.parse(`${to}T00:00:00Z`) + offset * DAY);

it('has the stats shape, zero-filled, for a fresh route', async () => {
  const route = await createRoute(server, { split_ratio: 1, intercept_level: 'off' });
  const before = iso(Date.now());
  const r = await api(server, 'GET', `/v1/routes/${route.id}`);
  const after = iso(Date.now());
  expect(r.status).toBe(200);
  const { stats, experiment: _experiment, ...rest } = r.json;
  expect(rest).toEqual(route);
  // Today in UTC (either side of midnight if the request straddled it).
  const today: string = r.json.stats.window.to;
  expect([before, after]).toContain(today);
  expect(Object.keys(stats).sort()).toEqual(['clicks', 'groups', 'intercepted', 'rule_hits', 'window']);
  expect(stats.window).toEqual({ days: 7, from: from(today, -6), to: today });
  expect(stats.clicks.total).toBe(0);
  expect(stats.clicks.daily).toEqual([-6, -5, -4, -3, -2, -1, 0].map((o) => ({ date: from(today, o), clicks: 0 })));
  expect(stats.groups).toEqual({ a: 0, b: 0 });
  expect(stats.intercepted).toBe(0);
  expect(stats.rule_hits).toEqual({ asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 0, crawler: 0 });
});

it('counts visits on today, the last daily entry', async () => {
  const route = await createRoute(server, { split_ratio: 1, intercept_level: 'off' });
  const client = new RedirectClient(server);
  try {
    for (let i = 0; i < 3; i++) expect((await client.visit(route.code, { visitor: visitorId() })).status).toBe(302);
  } finally {
    client.close();
  }
  const { value: stats } = await waitUntil(() => routeStats(server, route.id), (s) => s.clicks.total === 3, 2000);
  expect(stats.window.to).toBe(iso(Date.now()));
  expect(stats.clicks.daily).toHaveLength(7);
  expect(stats.clicks.daily[6]).toEqual({ date: stats.window.to, clicks: 3 });
  expect(stats.clicks.daily.slice(0, 6).every((d) => d.clicks === 0)).toBe(true);
  expect(stats.groups).toEqual({ a: 3, b: 0 });
  expect(stats.intercepted).toBe(0);
});
