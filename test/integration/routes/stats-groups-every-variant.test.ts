// A route with more than two variants: its stats' groups name every
// variant, so that the groups and the interceptions add up to the clicks
// (contract §4: groups count the real visitors by the page they were sent
// to). Before, `groups` held `a` and `b` only, and a third of a three-way
// split's visitors showed nowhere in the route's stats or the console.
import { expect, it } from 'vitest';
import { api, createRoute, routeStats, TRUST_LOOPBACK, useRedirectServer, visitorId, waitUntil, NO_RATE_LIMIT } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });

const PAGES = ['https://example.com/a', 'https://example.com/b', 'https://example.com/c'];
const VISITS = 60;
const DATA_CENTER = '3.5.0.1';

it('counts every variant in the groups, and they add up with the interceptions to the clicks', async () => {
  const created = await api(sg.server, 'POST', '/v1/routes', { name: 'three ways', variants: PAGES.map((url) => ({ url, weight: 1 })), intercept_level: 'medium' });
  expect(created.status, created.body).toBe(201);
  const route = created.json as { id: number; code: string };
  const sent = { a: 0, b: 0, c: 0 } as Record<string, number>;
  for (let i = 0; i < VISITS; i++) {
    const v = await sg.client.visit(route.code, { visitor: visitorId() });
    sent['abc'[PAGES.indexOf(v.location!)]!]! += 1;
  }
  for (let i = 0; i < 4; i++) expect((await sg.client.visit(route.code, { visitor: visitorId(), forwardedFor: DATA_CENTER })).location).toBe(PAGES[0]);
  expect(sent.c).toBeGreaterThan(0);

  const { value: stats } = await waitUntil(
    () => routeStats(sg.server, route.id),
    (s) => s.clicks.total === VISITS + 4 && Object.values(s.groups).reduce((a, b) => a + b, 0) + s.intercepted === s.clicks.total,
    5000,
  );
  expect(stats.groups).toEqual(sent);
  expect(stats.intercepted).toBe(4);
  // The same figures as the experiment's, variant by variant.
  const detail = await api(sg.server, 'GET', `/v1/routes/${route.id}`);
  expect(detail.json.experiment.variants.map((v: { key: string; clicks: number }) => [v.key, v.clicks])).toEqual(Object.entries(sent));
  // A two-variant route keeps its two groups.
  const plain = await createRoute(sg.server, { split_ratio: 0.5 });
  expect(Object.keys((await routeStats(sg.server, plain.id)).groups)).toEqual(['a', 'b']);
});
