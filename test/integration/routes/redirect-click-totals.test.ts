// Exact click totals: 10,000 GET redirects spread over 2 threads in parallel
// (a tenth of them from a data-center address) are all in the route's stats
// within 2.5 s of the last answer: clicks.total is exactly 10,000, today's
// daily entry too, and groups a + b + intercepted = 10,000. HEAD requests,
// interleaved, get the same 302 answer but are not counted.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRoute, inParallel, NO_RATE_LIMIT, RedirectClient, routeStats, TRUST_LOOPBACK, visitorId, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const GETS = 10_000;
const HEADS = 600;
let server: TestServer;
let client: RedirectClient;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
  client = new RedirectClient(server, 24);
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

it('counts every GET exactly once and no HEAD', async () => {
  const route = await createRoute(server, { split_ratio: 0.5, intercept_level: 'medium', default_group: 'a' });
  // Requests in a shuffled order of kinds: GET from a real visitor (with or
  // without a cookie), GET from a data center, HEAD.
  const kinds: ('get' | 'new' | 'dc' | 'head')[] = [];
  for (let i = 0; i < GETS; i++) kinds.push(i % 10 === 0 ? 'dc' : i % 3 === 0 ? 'new' : 'get');
  for (let i = 0; i < HEADS; i++) kinds.splice(Math.floor(Math.random() * kinds.length), 0, 'head');

  let intercepted = 0;
  const statuses = await inParallel(kinds, 96, async (kind, i) => {
    const thread = i % 2;
    if (kind === 'head') {
      const v = await client.visit(route.code, { method: 'HEAD', thread, visitor: visitorId() });
      expect(v.location === route.page_a || v.location === route.page_b).toBe(true);
      expect(v.body).toBe('');
      return v.status;
    }
    const v = await client.visit(route.code, {
      thread,
      visitor: kind === 'new' ? undefined : visitorId(),
      forwardedFor: kind === 'dc' ? '3.5.0.1' : undefined,
    });
    if (kind === 'dc' && v.location === route.page_a) intercepted++;
    return v.status;
  });
  expect(statuses.every((s) => s === 302)).toBe(true);
  expect(intercepted).toBe(GETS / 10);

  const { value: stats, ms } = await waitUntil(() => routeStats(server, route.id), (s) => s.clicks.total >= GETS, 2500, 25);
  expect(ms).toBeLessThanOrEqual(2500);
  expect(stats.clicks.total).toBe(GETS);
  expect(stats.clicks.daily[6].clicks).toBe(GETS);
  expect(stats.intercepted).toBe(GETS / 10);
  expect(stats.rule_hits.asn_blacklist).toBe(GETS / 10);
  expect(stats.groups.a + stats.groups.b + stats.intercepted).toBe(GETS);
  expect(stats.groups.a).toBeGreaterThan(0);
  expect(stats.groups.b).toBeGreaterThan(0);

  // Nothing more arrives later (a HEAD counted late would show up here).
  await new Promise((r) => setTimeout(r, 1200));
  expect((await routeStats(server, route.id)).clicks.total).toBe(GETS);
});
