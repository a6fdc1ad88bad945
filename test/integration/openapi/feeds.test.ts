// Range feeds and user agents against docs/openapi.yaml (contract §6a):
// GET /v1/ip/database lists every configured feed before and after a
// refresh that fetched them, with the refresh record's per-feed outcome; a
// check result carries a range feed and a user-agent verdict; a route's
// rule_hits count both rules.
//
// One server for the file, with two feeds served on loopback: tor (good, and
// naming TOR_EXIT) and aws (404), so both outcomes show. A refresh builds a
// whole database (seconds), so the file's setup runs the one refresh every
// test needs, through the API, and keeps the replies from before it and to
// its trigger for the test that checks them; after the setup no test
// changes the feeds or the database, and each test creates its own route.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request, type Response } from '../../helpers/client.js';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { callOn, type CallOptions, expectReply } from '../../helpers/openapi.js';
import { NO_RATE_LIMIT, TRUST_LOOPBACK, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

// Deutsche Telekom, a listed carrier: a Tor exit once the served list names it.
const TOR_EXIT = '80.187.0.1';
const CARRIER = '12.0.0.1';
const CURL = 'curl/8.5.0';

let feeds: FeedServer;
let srv: TestServer;
/** GET /v1/ip/database as the server started, before any refresh. */
let beforeRefresh: Response;
/** The answer to the POST /v1/ip/update that started the refresh. */
let trigger: Response;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/tor', { body: torList(['185.220.101.1', TOR_EXIT]) });
  srv = await startServer({
    env: {
      ...NO_RATE_LIMIT,
      ...TRUST_LOOPBACK,
      SPLITGUARD_IPDB_SOURCES: 'package:',
      SPLITGUARD_FEEDS: 'tor,aws',
      SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')};aws=${feeds.url('/aws-gone.json')}`,
    },
  });
  beforeRefresh = await on('GET', '/v1/ip/database');
  trigger = await on('POST', '/v1/ip/update');
  await waitUntil(
    () => on('GET', '/v1/ip/database'),
    (r) => r.json.refresh_running === false && r.json.last_refresh !== null && r.json.feeds[0].ranges === 2,
    60_000,
    100,
  );
});

afterAll(async () => {
  await srv?.close();
  await feeds?.close();
});

it('GET /v1/ip/database: 200 with every configured feed, before and after a refresh that fetched them', async () => {
  expectReply(beforeRefresh, '/v1/ip/database', 'GET', 200);
  expect(beforeRefresh.json.feeds).toEqual([
    { name: 'tor', label: 'tor', version: expect.stringMatching(/^snapshot /), fetched_at: expect.any(String), ranges: expect.any(Number), last_attempt_at: null, last_outcome: null, last_error: null, next_refresh_at: null },
    { name: 'aws', label: 'cloud', version: expect.stringMatching(/^snapshot /), fetched_at: expect.any(String), ranges: expect.any(Number), last_attempt_at: null, last_outcome: null, last_error: null, next_refresh_at: null },
  ]);

  expectReply(trigger, '/v1/ip/update', 'POST', 202);
  const after = await on('GET', '/v1/ip/database');
  expectReply(after, '/v1/ip/database', 'GET', 200);
  expect(after.json).toMatchObject({ refresh_running: false, last_refresh: expect.anything() });
  const [tor, aws] = after.json.feeds;
  expect(tor).toMatchObject({ name: 'tor', version: expect.stringMatching(/^[0-9a-f]{12}$/), ranges: 2, last_outcome: 'updated', last_error: null });
  expect(Date.parse(tor.next_refresh_at) - Date.parse(tor.fetched_at)).toBe(3_600_000);
  expect(aws).toMatchObject({ name: 'aws', version: expect.stringMatching(/^snapshot /), last_outcome: 'failed', last_error: expect.stringMatching(/aws-gone\.json: .*HTTP 404$/) });
  expect(after.json.last_refresh.feeds).toEqual([
    { feed: 'tor', outcome: 'updated', source: feeds.url('/tor'), error: null, ms: expect.any(Number) },
    { feed: 'aws', outcome: 'failed', source: null, error: aws.last_error, ms: expect.any(Number) },
  ]);
});

it('GET /v1/ip/check: signals.range_feed, and signals.user_agent with ua; 400 naming ua', async () => {
  const tor = await on('GET', `/v1/ip/check?ip=${TOR_EXIT}&level=low&ua=${encodeURIComponent(CURL)}`);
  expectReply(tor, '/v1/ip/check', 'GET', 200);
  expect(tor.json).toMatchObject({
    found: true,
    category: 'vpn_proxy',
    signals: { range_feed: { feed: 'tor', label: 'tor' }, carrier_whitelist: null, user_agent: { crawler: true, match: 'curl' } },
    intercepted: true,
  });

  const plain = await on('GET', `/v1/ip/check?ip=${CARRIER}`);
  expectReply(plain, '/v1/ip/check', 'GET', 200);
  expect(plain.json.signals).toMatchObject({ range_feed: null, user_agent: null });
  expect(plain.json.intercept).toEqual({ low: false, medium: false, high: false });

  // An empty user agent: no crawler, but intercepted at high.
  const empty = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=`);
  expectReply(empty, '/v1/ip/check', 'GET', 200);
  expect(empty.json.signals.user_agent).toEqual({ crawler: false, match: null });
  expect(empty.json.intercept).toEqual({ low: false, medium: false, high: true });

  const person = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=${encodeURIComponent('Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')}`);
  expectReply(person, '/v1/ip/check', 'GET', 200);
  expect(person.json.signals.user_agent).toEqual({ crawler: false, match: null });

  const longest = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=${'a'.repeat(1024)}`);
  expectReply(longest, '/v1/ip/check', 'GET', 200);
  for (const query of [`ip=${CARRIER}&ua=${'a'.repeat(1025)}`, `ip=${CARRIER}&ua=a&ua=b`]) {
    expectReply(await on('GET', `/v1/ip/check?${query}`), '/v1/ip/check', 'GET', 400, { code: 'invalid_parameter', field: 'ua' });
  }
});

it('POST /v1/ip/check: user_agent is judged for every address; 400 naming user_agent', async () => {
  const batch = await on('POST', '/v1/ip/check', { json: { ips: [TOR_EXIT, CARRIER], user_agent: 'facebookexternalhit/1.1' } });
  expectReply(batch, '/v1/ip/check', 'POST', 200);
  expect(batch.json.results.map((r: { signals: unknown }) => r.signals)).toMatchObject([
    { range_feed: { feed: 'tor', label: 'tor' }, user_agent: { crawler: true, match: 'facebookexternalhit' } },
    { range_feed: null, user_agent: { crawler: true, match: 'facebookexternalhit' } },
  ]);
  const without = await on('POST', '/v1/ip/check', { json: { ips: [CARRIER] } });
  expectReply(without, '/v1/ip/check', 'POST', 200);
  expect(without.json.results[0].signals.user_agent).toBeNull();

  for (const user_agent of [null, 5, 'a'.repeat(1025)]) {
    expectReply(await on('POST', '/v1/ip/check', { json: { ips: [CARRIER], user_agent } }), '/v1/ip/check', 'POST', 400, { code: 'invalid_parameter', field: 'user_agent' });
  }
});

it('GET /v1/routes/{id}: rule_hits counts range_feed and crawler', async () => {
  const created = await on('POST', '/v1/routes', { json: { name: 'feeds', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/', intercept_level: 'low' } });
  expectReply(created, '/v1/routes', 'POST', 201);
  const visit = (forwardedFor: string, userAgent: string) =>
    request({ port: srv.ports[0], ca: srv.ca, path: `/r/${created.json.code}`, headers: { 'X-Forwarded-For': forwardedFor, 'User-Agent': userAgent } });
  expect((await visit(TOR_EXIT, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')).status).toBe(302);
  expect((await visit(CARRIER, CURL)).status).toBe(302);
  const { value: detail } = await waitUntil(() => on('GET', `/v1/routes/${created.json.id}`), (r) => r.json.stats.clicks.total >= 2, 5000);
  expectReply(detail, '/v1/routes/{id}', 'GET', 200);
  expect(detail.json.stats).toMatchObject({
    intercepted: 2,
    rule_hits: { asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 1, crawler: 1 },
  });
});
