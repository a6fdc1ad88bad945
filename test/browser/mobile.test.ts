// At 390×844 (a phone) every page fits the width: no horizontal scrolling of
// the page, tables turned into labelled cards, the navigation wrapped.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, PHONE, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { call } from '../helpers/client.js';
import { createRoute, NO_RATE_LIMIT } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_SHORT_BASE: 'https://go.example.com' } }), launchChromium()]);
  for (const name of ['Newsletter spring', 'Partner landing (a long name that has to wrap on a narrow screen)', 'Retargeting']) {
    const r = await createRoute(server, { name, split_ratio: 0.7 });
    for (let i = 0; i < 3; i++) await call(server.ports[0], server.ca, 'GET', `/r/${r.code}`);
  }
  ({ page } = await openConsole(browser, server, PHONE));
  await signInAdmin(page, server);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

it('shows the routes list without horizontal overflow', async () => {
  await visit(page, '/routes', 'Routes');
  await page.getByRole('link', { name: 'Retargeting' }).waitFor();
  expect(await overflow()).toBeLessThanOrEqual(0);
  // Each cell is labelled in the card layout.
  const label = await page.locator('tbody td').first().evaluate((td) => getComputedStyle(td, '::before').content);
  expect(label).toBe('"Name"');
  await screenshot(page, 'mobile-routes');
});

it('shows a route page with its charts within the width', async () => {
  await page.getByRole('link', { name: 'Retargeting' }).click();
  await page.getByRole('heading', { level: 1, name: 'Retargeting' }).waitFor();
  await page.locator('.chart-clicks svg').waitFor();
  expect(await overflow()).toBeLessThanOrEqual(0);
  const widths = await page.locator('svg.chart').evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width));
  // Clicks, groups, rule hits and the experiment's conversion rates.
  expect(widths).toHaveLength(4);
  for (const w of widths) expect(w).toBeLessThanOrEqual(390);
  await screenshot(page, 'mobile-route');
});

it('fits the other pages too', async () => {
  for (const [path, heading] of [['/keys', 'Account and API keys'], ['/ip?ip=8.8.8.8', 'IP check'], ['/database', 'IP database'], ['/admin/blacklist', 'ASN blacklist'], ['/admin/accounts', 'Accounts']]) {
    await visit(page, path, heading);
    await page.waitForTimeout(300);
    expect(await overflow(), path).toBeLessThanOrEqual(0);
  }
});
