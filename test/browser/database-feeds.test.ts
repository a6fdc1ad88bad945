// The database page lists every configured range feed with what the serving
// database holds of it and the outcome of its last refresh, from the same
// answer as GET /v1/ip/database. Three feeds, their publishers a loopback
// server: tor is served (ok), mullvad's only node answers 404 from a URL
// holding markup (failed, the reason shown as text), aws has no node at all
// (`aws=`: never fetched, still on its shipped snapshot).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleCall, launchChromium, openConsole, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { type FeedServer, startFeedServer, torList } from '../helpers/feed-server.js';
import { NO_RATE_LIMIT } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PAYLOAD = '<img src=x onerror=window.__xss=1>';

let feeds: FeedServer;
let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/tor', { body: torList(['185.220.101.1', '185.220.101.2']) });
  [server, browser] = await Promise.all([
    startServer({
      env: {
        ...NO_RATE_LIMIT,
        SPLITGUARD_IPDB_SOURCES: 'package:',
        SPLITGUARD_FEEDS: 'tor,mullvad,aws',
        SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')};mullvad=${feeds.url(`/gone${PAYLOAD}`)};aws=`,
      },
    }),
    launchChromium(),
  ]);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
  await visit(page, '/database', 'IP database');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await feeds?.close();
});

/** The feeds table as text: name, label, version, ranges, outcome badge, error. */
const rows = () =>
  page.locator('table.feeds tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      name: tr.querySelector('.feed-name')!.textContent,
      outcome: tr.getAttribute('data-outcome'),
      label: tr.querySelector('.feed-label')!.textContent,
      version: tr.querySelector('.feed-version')!.textContent,
      fetched: tr.querySelector('.feed-fetched')!.textContent,
      ranges: tr.querySelector('.feed-ranges')!.textContent,
      badge: tr.querySelector('.feed-outcome .badge')!.textContent,
      error: tr.querySelector('.feed-error')?.textContent ?? null,
    })),
  );

it('shows each feed with its version, age, ranges and last outcome, a failing feed as failing', async () => {
  // Before any refresh: the shipped snapshots, nothing fetched yet.
  await page.locator('table.feeds').waitFor();
  expect((await rows()).map((r) => [r.name, r.badge])).toEqual([
    ['tor', 'not yet fetched'],
    ['mullvad', 'not yet fetched'],
    ['aws', 'not yet fetched'],
  ]);

  await page.getByRole('button', { name: 'Refresh now' }).click();
  // A feed's outcome is recorded when it is fetched, its data shows once the
  // rebuilt database serves: wait for both.
  await expect.poll(async () => (await rows()).map((r) => [r.outcome, r.ranges]), { timeout: 90_000, interval: 500 }).toEqual([
    ['ok', '2'],
    ['failed', expect.any(String)],
    ['none', expect.any(String)],
  ]);
  await expect.poll(() => page.locator('.last-refresh .outcome').textContent().catch(() => null), { timeout: 30_000, interval: 500 }).toBe('updated');
  const [tor, mullvad, aws] = await rows();

  expect(tor).toMatchObject({ label: 'tor', ranges: '2', badge: 'ok', error: null });
  expect(tor.version).toMatch(/^[0-9a-f]{12}$/);
  expect(tor.fetched).toMatch(/^20\d\d-\d\d-\d\d \d\d:\d\d UTC \(just now\)$/);

  // Failed: the reason, naming the node, as text; the snapshot keeps serving.
  expect(mullvad).toMatchObject({ label: 'vpn', version: 'snapshot 2026-08-22', badge: 'failed' });
  expect(mullvad.error).toContain(`/gone${PAYLOAD}`);
  expect(mullvad.error).toMatch(/HTTP 404$/);
  expect(Number(mullvad.ranges!.replaceAll(',', ''))).toBeGreaterThan(0);
  expect(mullvad.fetched).toMatch(/^2026-08-22 00:00 UTC \(\d+ days ago\)$/);
  expect(await page.locator('table.feeds img').count()).toBe(0);
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();

  expect(aws).toMatchObject({ label: 'cloud', version: 'snapshot 2026-08-21', badge: 'not yet fetched', error: null });
  expect(await page.locator('.feeds-summary').textContent()).toBe('3 feeds: 1 ok, 1 failed, 1 not yet fetched. Failing: mullvad.');

  // The page shows what the API answers, nothing computed apart.
  const api = await consoleCall(page, 'GET', '/v1/ip/database');
  expect(api.status).toBe(200);
  expect((await rows()).map((r) => [r.name, r.label, r.version, r.ranges])).toEqual(
    api.json.feeds.map((f: { name: string; label: string; version: string | null; ranges: number | null }) => [f.name, f.label, f.version ?? '—', f.ranges === null ? '—' : f.ranges.toLocaleString('en')]),
  );
  expect(api.json.feeds.map((f: { last_outcome: string | null }) => f.last_outcome)).toEqual(['updated', 'failed', null]);
  await screenshot(page, 'database-feeds');
});
