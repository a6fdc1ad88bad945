// Interception at the route's level (client addresses through a trusted
// X-Forwarded-For): at medium, data-center and blacklisted visitors (Amazon
// AS14618 and AS16509, Google AS15169), also written IPv4-mapped
// (::ffff:3.5.0.1), go to the default group's page, for default_group a and
// b; a carrier visitor (Deutsche Telekom AS3320) and an address outside the
// database are split as normal; at level off nobody is intercepted. The stats
// count intercepted visits and their asn_blacklist rule hits. The tests run
// concurrently (each on its own route) so the waits for the click flush overlap.
import { describe, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, pageOf, type RouteBody, routeStats, TRUST_LOOPBACK, useRedirectServer, visitorId, waitUntil } from '../../helpers/routes.js';

const DATA_CENTER = ['3.5.0.1', '52.95.110.1', '8.8.8.8', '::ffff:3.5.0.1', '::ffff:8.8.8.8'];
const CARRIER = '80.128.0.1';
const NOT_IN_DATABASE = '192.0.2.1'; // TEST-NET-1: never announced

const sg = useRedirectServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });

/** Every real visitor goes to the page opposite the default group, so an interception shows. */
async function routeWith(level: string, defaultGroup: 'a' | 'b'): Promise<RouteBody> {
  return createRoute(sg.server, { intercept_level: level, default_group: defaultGroup, split_ratio: defaultGroup === 'a' ? 0 : 1 });
}

const pageFrom = async (route: RouteBody, ip: string) => pageOf(await sg.client.visit(route.code, { forwardedFor: ip, visitor: visitorId() }));
const settled = (route: RouteBody, clicks: number) =>
  waitUntil(() => routeStats(sg.server, route.id), (s) => s.clicks.total === clicks, 2000).then((r) => r.value);

describe.concurrent.each(['a', 'b'] as const)('level medium, default group %s', (group) => {
  const other = group === 'a' ? 'b' : 'a';

  it('sends data-center visitors (IPv4 and IPv4-mapped) to the default page and counts them', async ({ expect }) => {
    const route = await routeWith('medium', group);
    for (const ip of DATA_CENTER) expect(await pageFrom(route, ip), ip).toBe(group);
    const stats = await settled(route, DATA_CENTER.length);
    expect(stats.intercepted).toBe(DATA_CENTER.length);
    expect(stats.rule_hits.asn_blacklist).toBe(DATA_CENTER.length);
    expect(stats.groups).toEqual({ a: 0, b: 0 });
    expect(stats.rule_hits.check_failed).toBe(0);
  });

  it('splits carrier visitors and addresses outside the database as normal', async ({ expect }) => {
    const route = await routeWith('medium', group);
    expect(await pageFrom(route, CARRIER)).toBe(other);
    expect(await pageFrom(route, NOT_IN_DATABASE)).toBe(other);
    expect(await pageFrom(route, `::ffff:${CARRIER}`)).toBe(other);
    const stats = await settled(route, 3);
    expect(stats.intercepted).toBe(0);
    expect(stats.rule_hits).toEqual({ asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 0, crawler: 0 });
    expect(stats.groups).toEqual(group === 'a' ? { a: 0, b: 3 } : { a: 3, b: 0 });
  });
});

it.concurrent('intercepts a blacklisted ASN at level low too', async ({ expect }) => {
  const route = await routeWith('low', 'a');
  expect(await pageFrom(route, '3.5.0.1')).toBe('a');
  expect(await pageFrom(route, CARRIER)).toBe('b');
  const stats = await settled(route, 2);
  expect(stats.intercepted).toBe(1);
  expect(stats.rule_hits.asn_blacklist).toBe(1);
  expect(stats.groups).toEqual({ a: 0, b: 1 });
});

it.concurrent('intercepts nobody at level off', async ({ expect }) => {
  const route = await routeWith('off', 'a');
  for (const ip of [...DATA_CENTER, CARRIER]) expect(await pageFrom(route, ip), ip).toBe('b');
  const stats = await settled(route, DATA_CENTER.length + 1);
  expect(stats.intercepted).toBe(0);
  expect(stats.rule_hits).toEqual({ asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 0, crawler: 0 });
  expect(stats.groups).toEqual({ a: 0, b: DATA_CENTER.length + 1 });
});

it.concurrent('takes a level change by PUT into account on the next visit', async ({ expect }) => {
  const route = await routeWith('off', 'a');
  expect(await pageFrom(route, '52.95.110.1')).toBe('b');
  const put = await api(sg.server, 'PUT', `/v1/routes/${route.id}`, { intercept_level: 'medium' });
  expect(put.status).toBe(200);
  expect(await pageFrom(route, '52.95.110.1')).toBe('a');
});
