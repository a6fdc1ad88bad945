// Range feeds in the redirect (the shipped snapshots the test database holds):
// a Tor exit and a VPN server are sent to the default page from low, and
// counted under rule_hits.range_feed; an iCloud Private Relay egress address
// (real people) passes at low and medium and is intercepted only at high.
import { expect, it } from 'vitest';
import { check } from '../../helpers/refresh.js';
import { createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, routeStats, TRUST_LOOPBACK, useRedirectServer, visitorId, waitUntil } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });

// A Tor exit and a VPN server on ASNs no blacklist names: the feed decides.
const TOR = '171.25.193.25'; // AS198093, DFRI
const VPN = '45.132.195.35'; // a PIA server (feed pia), AS206804 EstNOC
const RELAY = '172.224.226.1'; // iCloud Private Relay egress (feed icloud-relay), on Akamai AS36183

it('finds the addresses in their feeds', async () => {
  expect((await check(sg.server, TOR)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  expect((await check(sg.server, VPN)).signals.range_feed).toEqual({ feed: 'pia', label: 'vpn' });
  expect((await check(sg.server, RELAY)).signals.range_feed).toEqual({ feed: 'icloud-relay', label: 'relay' });
});

it('intercepts Tor and VPN from low, relays only at high', async () => {
  const visit = async (level: string, ip: string) => {
    const route = await createRoute(sg.server, { intercept_level: level, default_group: 'b', split_ratio: 1 });
    return (await sg.client.visit(route.code, { forwardedFor: ip, visitor: visitorId() })).location;
  };
  expect(await visit('low', TOR)).toBe(PAGE_B);
  expect(await visit('low', VPN)).toBe(PAGE_B);
  expect(await visit('low', RELAY)).toBe(PAGE_A);
  expect(await visit('medium', RELAY)).toBe(PAGE_A);
  expect(await visit('high', RELAY)).toBe(PAGE_B);
  expect(await visit('off', TOR)).toBe(PAGE_A);
});

it('counts feed interceptions under range_feed', async () => {
  const route = await createRoute(sg.server, { intercept_level: 'low', default_group: 'b' });
  for (const ip of [TOR, VPN, TOR]) await sg.client.visit(route.code, { forwardedFor: ip, visitor: visitorId() });
  const { value } = await waitUntil(() => routeStats(sg.server, route.id), (s) => s.clicks.total === 3, 5000);
  expect(value.rule_hits).toMatchObject({ range_feed: 3, crawler: 0, asn_blacklist: 0, vpn_proxy: 0 });
  expect(value.intercepted).toBe(3);
});
