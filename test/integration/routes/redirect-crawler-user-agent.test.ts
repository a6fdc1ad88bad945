// The redirect reads User-Agent: a crawler, link-preview bot, headless
// browser or HTTP library is sent to the default page from level low up and
// counted under rule_hits.crawler; an empty User-Agent only at high; a
// browser, in-app browsers included, is split. Level off intercepts nothing.
import { expect, it } from 'vitest';
import { BROWSER_UA, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, routeStats, TRUST_LOOPBACK, useRedirectServer, visitorId, waitUntil } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 2, env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });

const CRAWLERS = [
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  'Twitterbot/1.0',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  'TelegramBot (like TwitterBot)',
  'WhatsApp/2.23.20.0 A',
  'curl/8.4.0',
  'python-requests/2.31.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
];
const PEOPLE = [
  BROWSER_UA,
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0.32.110;]',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 Instagram 312.0.0.32.112 Android',
];
// A carrier address (Deutsche Telekom): the address alone never intercepts.
const PERSON_ADDRESS = '80.187.0.1';

it('sends crawlers to the default page from low, counts them, and splits people', async () => {
  const route = await createRoute(sg.server, { intercept_level: 'low', default_group: 'b', split_ratio: 1 });
  for (const [i, userAgent] of CRAWLERS.entries()) {
    const v = await sg.client.visit(route.code, { userAgent, forwardedFor: PERSON_ADDRESS, visitor: visitorId(), thread: i % 2 });
    expect(v.location, userAgent).toBe(PAGE_B);
  }
  for (const userAgent of PEOPLE) {
    expect((await sg.client.visit(route.code, { userAgent, forwardedFor: PERSON_ADDRESS, visitor: visitorId() })).location, userAgent).toBe(PAGE_A);
  }
  // An empty User-Agent passes at low.
  expect((await sg.client.visit(route.code, { userAgent: '', forwardedFor: PERSON_ADDRESS, visitor: visitorId() })).location).toBe(PAGE_A);
  const { value } = await waitUntil(() => routeStats(sg.server, route.id), (s) => s.clicks.total === CRAWLERS.length + PEOPLE.length + 1, 5000);
  expect(value.rule_hits).toMatchObject({ crawler: CRAWLERS.length, range_feed: 0, asn_blacklist: 0 });
  expect(value.intercepted).toBe(CRAWLERS.length);
  expect(value.groups).toEqual({ a: PEOPLE.length + 1, b: 0 });
});

it('intercepts an empty User-Agent at high only, and nothing at off', async () => {
  const high = await createRoute(sg.server, { intercept_level: 'high', default_group: 'b', split_ratio: 1 });
  expect((await sg.client.visit(high.code, { userAgent: '', forwardedFor: PERSON_ADDRESS })).location).toBe(PAGE_B);
  expect((await sg.client.visit(high.code, { forwardedFor: PERSON_ADDRESS })).location).toBe(PAGE_A);
  const off = await createRoute(sg.server, { intercept_level: 'off', default_group: 'b', split_ratio: 1 });
  expect((await sg.client.visit(off.code, { userAgent: CRAWLERS[0], forwardedFor: PERSON_ADDRESS })).location).toBe(PAGE_A);
  expect((await sg.client.visit(off.code, { userAgent: '', forwardedFor: PERSON_ADDRESS })).location).toBe(PAGE_A);
});
