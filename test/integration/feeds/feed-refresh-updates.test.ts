// Feeds are fetched from their publishers (here, copies served on loopback)
// when a refresh runs, and folded into the database every thread serves: an
// address of a carrier that appears in the Tor exit list is intercepted from
// low as vpn_proxy (no whitelist cancels a feed), so is the IPv6 address of
// an exit relay in Onionoo's details (and not a relay without the Exit flag),
// feed space outside the ASN data (an AWS prefix here) is a data center from
// medium though "not found",
// and GET /v1/ip/database lists each feed with its version, fetch time,
// ranges and last outcome.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { awsRanges, type FeedServer, onionooDetails, startFeedServer, torList } from '../../helpers/feed-server.js';
import { check, databaseStatus, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let feeds: FeedServer;
let server: TestServer;
const CARRIER_ADDRESS = '80.187.0.1'; // Deutsche Telekom, AS3320, an explicit carrier
const UNANNOUNCED = '2.30.0.7'; // unannounced in the test database: in no ASN range
const EXIT_V6 = '2a0b:f4c2:2::33'; // an exit relay's IPv6 OR address (the bulk list has no IPv6)
const MIDDLE_V6 = '2a01:4f8:c013:e4c0::1'; // a relay without the Exit flag

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/tor', { body: torList(['185.220.101.1', CARRIER_ADDRESS]) });
  feeds.routes.set('/aws.json', { body: awsRanges(['3.5.140.0/22', '2.30.0.0/24']) });
  feeds.routes.set('/onionoo', {
    body: onionooDetails([
      { or: ['185.220.101.33:10133', `[${EXIT_V6}]:10133`], exits: ['185.220.101.33'] },
      { or: ['128.140.60.104:9001', `[${MIDDLE_V6}]:9001`], flags: ['Fast', 'Guard', 'Running', 'Valid'] },
    ]),
  });
  server = await startServer({
    threads: 2,
    env: {
      ...NO_RATE_LIMIT,
      SPLITGUARD_IPDB_SOURCES: 'package:',
      SPLITGUARD_FEEDS: 'tor,tor-onionoo,aws',
      SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')};tor-onionoo=${feeds.url('/onionoo')};aws=${feeds.url('/aws.json')}`,
    },
  });
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

it('folds the fetched feeds into the database on every thread', async () => {
  expect((await check(server, CARRIER_ADDRESS)).signals.range_feed).toBeNull();
  const status = await refreshNow(server, server.apiKey);
  expect(status.last_refresh).toMatchObject({ outcome: 'updated' });
  expect(status.last_refresh!.feeds).toEqual([
    { feed: 'tor', outcome: 'updated', source: feeds.url('/tor'), error: null, ms: expect.any(Number) },
    { feed: 'tor-onionoo', outcome: 'updated', source: feeds.url('/onionoo'), error: null, ms: expect.any(Number) },
    { feed: 'aws', outcome: 'updated', source: feeds.url('/aws.json'), error: null, ms: expect.any(Number) },
  ]);
  for (let thread = 0; thread < 2; thread++) {
    const carrier = await check(server, CARRIER_ADDRESS, thread);
    expect(carrier).toMatchObject({
      found: true,
      asn: 3320,
      category: 'vpn_proxy',
      intercept: { low: true, medium: true, high: true },
      signals: { range_feed: { feed: 'tor', label: 'tor' }, carrier_whitelist: null },
    });
    expect(await check(server, EXIT_V6, thread)).toMatchObject({
      category: 'vpn_proxy',
      intercept: { low: true, medium: true, high: true },
      signals: { range_feed: { feed: 'tor-onionoo', label: 'tor' } },
    });
    expect((await check(server, MIDDLE_V6, thread)).signals.range_feed).toBeNull();
    const cloud = await check(server, UNANNOUNCED, thread);
    expect(cloud).toMatchObject({
      found: false,
      asn: null,
      category: 'datacenter',
      intercept: { low: false, medium: true, high: true },
      signals: { range_feed: { feed: 'aws', label: 'cloud' } },
    });
  }
});

it('lists every configured feed with what the serving database holds', async () => {
  const status = await databaseStatus(server);
  expect(status.feeds).toEqual([
    {
      name: 'tor', label: 'tor', version: expect.stringMatching(/^[0-9a-f]{12}$/), fetched_at: expect.any(String), ranges: 2,
      last_attempt_at: expect.any(String), last_outcome: 'updated', last_error: null, next_refresh_at: expect.any(String),
    },
    {
      name: 'tor-onionoo', label: 'tor', version: '2026-11-23 10:00:00', fetched_at: expect.any(String), ranges: 2,
      last_attempt_at: expect.any(String), last_outcome: 'updated', last_error: null, next_refresh_at: expect.any(String),
    },
    {
      name: 'aws', label: 'cloud', version: '1763000000', fetched_at: expect.any(String), ranges: 3,
      last_attempt_at: expect.any(String), last_outcome: 'updated', last_error: null, next_refresh_at: expect.any(String),
    },
  ]);
  const tor = status.feeds.find((f) => f.name === 'tor')!;
  expect(Date.parse(tor.next_refresh_at!) - Date.parse(tor.fetched_at!)).toBe(3_600_000);
});
