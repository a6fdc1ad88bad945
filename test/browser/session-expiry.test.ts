// Sessions end after the idle timeout (SPLITGUARD_SESSION_IDLE_MINUTES, here
// 0.05 = 3 s): the API answers 401 session_invalid and the app returns to the
// login page with a message, then back to the same page after signing in.
// Activity keeps a session alive. (The 12-hour absolute limit is tested with
// an injected clock in test/unit/console-sessions.test.ts.)
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleCall, launchChromium, openConsole, signInAdmin, visit } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const IDLE_MS = 3000;
let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: { SPLITGUARD_SESSION_IDLE_MINUTES: '0.05' } }), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('refuses an idle session with 401 and sends the user back to the login page', async () => {
  const { page, context } = await openConsole(browser, server);
  await signInAdmin(page, server);
  await visit(page, '/ip', 'IP check');
  const me = await consoleCall(page, 'GET', '/session');
  expect(me.json.idle_minutes).toBe(0.05);

  await sleep(IDLE_MS + 1000);
  const r = await consoleCall(page, 'GET', '/v1/routes');
  expect(r.status).toBe(401);
  expect(r.json).toEqual({ error: 'the console session is missing or has expired; sign in again', code: 'session_invalid', field: null });
  expect(r.headers['set-cookie']).toMatch(/^__Host-sg_session=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Strict/);
  expect(r.headers['set-cookie']).toMatch(/\n__Host-sg_session_b=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Strict/);

  // The app notices on its next request.
  await page.getByRole('link', { name: 'Database' }).click();
  await page.getByText('Your session has ended. Please sign in again.').waitFor();
  await page.getByRole('heading', { name: 'Sign in to splitguard' }).waitFor();
  expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);

  // Signing in again returns to the page that was asked for.
  await signInAdmin(page, server);
  await page.getByRole('heading', { level: 1, name: 'IP database' }).waitFor();
  await context.close();
});

it('keeps a session alive while it is used', async () => {
  const { page, context } = await openConsole(browser, server);
  await signInAdmin(page, server);
  const until = Date.now() + 2 * IDLE_MS;
  while (Date.now() < until) {
    expect((await consoleCall(page, 'GET', '/session')).status).toBe(200);
    await sleep(IDLE_MS / 3);
  }
  await sleep(IDLE_MS + 1000);
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(401);
  await context.close();
});
