// A route's page refreshes its figures every second and the database page
// every two; those requests kept the session alive as any request does, so a
// console left open on an unattended screen never reached the idle limit
// (SPLITGUARD_SESSION_IDLE_MINUTES, here 0.05 = 3 s) and stayed signed in
// for the session's whole 12 hours. The refreshes pause once the user has
// done nothing for half that limit: the session then ends within 1.5 times
// the limit of the user's last action, and the next action shows the sign-in.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleCall, launchChromium, openConsole, signInAdmin, visit } from '../helpers/browser.js';
import { createRoute } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

const IDLE_MS = 3000;
let server: TestServer;
let browser: Browser;
let routeId = 0;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: { SPLITGUARD_SESSION_IDLE_MINUTES: '0.05' } }), launchChromium()]);
  routeId = (await createRoute(server, { name: 'Left open' })).id;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const [path, heading] of [[`/routes/ROUTE`, 'Left open'], ['/database', 'IP database']]) {
  it(`ends an unattended session on ${path.replace('ROUTE', ':id')} although the page refreshes itself`, async () => {
    const { page, context } = await openConsole(browser, server);
    await signInAdmin(page, server);
    const polls: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/console/api/v1/')) polls.push(Date.now());
    });
    await visit(page, path.replace('ROUTE', String(routeId)), heading);
    await sleep(2.5 * IDLE_MS);
    expect(polls.length).toBeGreaterThan(0);
    expect((await consoleCall(page, 'GET', '/session')).status).toBe(401);
    // The user comes back: the next refresh finds the session gone.
    await page.mouse.move(200, 200);
    await page.mouse.move(220, 240);
    await page.getByText('Your session has ended. Please sign in again.').waitFor();
    await context.close();
  });
}

it('keeps the session of a user who keeps using the page', async () => {
  const { page, context } = await openConsole(browser, server);
  await signInAdmin(page, server);
  await visit(page, `/routes/${routeId}`, 'Left open');
  const until = Date.now() + 2.5 * IDLE_MS;
  for (let x = 100; Date.now() < until; x += 7) {
    await page.mouse.move(x, 300);
    await sleep(400);
  }
  expect(await page.getByRole('heading', { level: 1, name: 'Left open' }).isVisible()).toBe(true);
  // Checked without touching it: the page's own refreshes kept it alive.
  await sleep(500);
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(200);
  await context.close();
});
