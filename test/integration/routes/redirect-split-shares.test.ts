// The split sends the share split_ratio of real visitors to page A: with
// 3000 distinct visitor cookies, ratio 0 sends none to A, ratio 1 all, and
// ratio 0.3 a share within 4 standard deviations of 0.3 (900 ± 100). The
// route's stats count the same groups.
import { type ExpectStatic, it } from 'vitest';
import { createRoute, inParallel, NO_RATE_LIMIT, pageOf, routeStats, useRedirectServer, visitorId, waitUntil } from '../../helpers/routes.js';

const VISITORS = 3000;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

/** Visits the route once per fresh visitor id (alternating threads); returns how many went to A. */
async function sharesFor(ratio: number, expect: ExpectStatic): Promise<{ id: number; a: number }> {
  const route = await createRoute(sg.server, { split_ratio: ratio });
  const ids = Array.from({ length: VISITORS }, visitorId);
  expect(new Set(ids).size).toBe(VISITORS);
  const pages = await inParallel(ids, 32, async (visitor, i) => {
    const v = await sg.client.visit(route.code, { visitor, thread: i % 2 });
    expect(v.headers['cache-control']).toBe('private, no-store');
    expect(v.setCookie).toEqual([]); // a valid cookie is kept, not replaced
    return pageOf(v);
  });
  return { id: route.id, a: pages.filter((p) => p === 'a').length };
}

it.concurrent('ratio 0 sends everyone to B', async ({ expect }) => {
  const { id, a } = await sharesFor(0, expect);
  expect(a).toBe(0);
  const { value: stats } = await waitUntil(() => routeStats(sg.server, id), (s) => s.clicks.total === VISITORS, 2000);
  expect(stats.groups).toEqual({ a: 0, b: VISITORS });
});

it.concurrent('ratio 1 sends everyone to A', async ({ expect }) => {
  const { id, a } = await sharesFor(1, expect);
  expect(a).toBe(VISITORS);
  const { value: stats } = await waitUntil(() => routeStats(sg.server, id), (s) => s.clicks.total === VISITORS, 2000);
  expect(stats.groups).toEqual({ a: VISITORS, b: 0 });
});

it.concurrent('ratio 0.3 sends 30% to A within 4 standard deviations', async ({ expect }) => {
  const { id, a } = await sharesFor(0.3, expect);
  const sd = Math.sqrt(VISITORS * 0.3 * 0.7); // ≈ 25.1
  expect(a).toBeGreaterThanOrEqual(Math.ceil(VISITORS * 0.3 - 4 * sd));
  expect(a).toBeLessThanOrEqual(Math.floor(VISITORS * 0.3 + 4 * sd));
  const { value: stats } = await waitUntil(() => routeStats(sg.server, id), (s) => s.clicks.total === VISITORS, 2000);
  expect(stats.groups).toEqual({ a, b: VISITORS - a });
});
