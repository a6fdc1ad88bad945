// The route page's rule-hits chart shows every counter of stats.rule_hits,
// each bar under its own label: here a Tor exit (a range feed decides), a
// carrier visitor whose User-Agent is curl (the crawler rule decides), a
// blacklisted ASN, and a person, visiting a route at level low. The exit is
// in the Tor feed's shipped snapshot, folded into the test database.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, signInAdmin, visit } from '../helpers/browser.js';
import { check } from '../helpers/refresh.js';
import { createRoute, NO_RATE_LIMIT, RedirectClient, TRUST_LOOPBACK } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TOR_EXIT = '195.176.3.23'; // SWITCH, AS559: not blacklisted, a Tor exit in the snapshot
const CARRIER = '12.0.0.1'; // AT&T, a listed carrier
const BLACKLISTED = '8.8.8.8'; // Google, AS15169

let server: TestServer;
let browser: Browser;
let page: Page;
let visitor: RedirectClient;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } }), launchChromium()]);
  visitor = new RedirectClient(server);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
});
afterAll(async () => {
  visitor?.close();
  await browser?.close();
  await server?.close();
});

it('shows range-feed and crawler interceptions beside the other rule hits', async () => {
  expect((await check(server, TOR_EXIT)).signals).toMatchObject({ asn_blacklist: false, range_feed: { feed: 'tor', label: 'tor' } });
  const route = await createRoute(server, { name: 'Rule hits', intercept_level: 'low' });
  await visit(page, `/routes/${route.id}`, 'Rule hits');

  for (const [forwardedFor, userAgent] of [[TOR_EXIT, undefined], [CARRIER, 'curl/8.5.0'], [BLACKLISTED, undefined], [CARRIER, undefined]] as const) {
    expect((await visitor.visit(route.code, { forwardedFor, userAgent })).status).toBe(302);
  }

  const bars = () =>
    page.locator('.chart-rules rect').evaluateAll((rects) =>
      rects.map((r) => [r.getAttribute('data-key'), r.querySelector('title')!.textContent, r.getAttribute('data-value')]),
    );
  await expect.poll(bars, { timeout: 5000, interval: 100 }).toEqual([
    ['asn_blacklist', 'ASN blacklist: 1', '1'],
    ['range_feed', 'Range feed: 1', '1'],
    ['org_keyword', 'Org keyword: 0', '0'],
    ['vpn_proxy', 'VPN / proxy: 0', '0'],
    ['crawler', 'Crawler (UA): 1', '1'],
    ['carrier_whitelist', 'Carrier override: 0', '0'],
    ['check_failed', 'Check failed: 0', '0'],
  ]);
  // The fourth (real) visit can reach the counts in a later flush than the three interceptions.
  await expect.poll(() => page.locator('.stats-summary').textContent(), { timeout: 5000, interval: 100 }).toMatch(/^4 clicks from .*: [01] to A, [01] to B, 3 intercepted\.$/);
});
