// A console page the tab leaves is kept whole by Chromium's back-forward
// cache, and Back shows it again as it was left: a key's secret, "shown only
// once", came back with it, and so did the account's pages after their
// session had ended in another tab. Leaving must forget what the page
// showed; coming back draws it again from the server, or the sign-in.
// (Playwright turns the cache off; these tests keep it on, and check that
// Back really restored the page from it, with pageshow's `persisted`.)
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleCall, csrfToken, launchChromium, openConsole, origin, signInAdmin, visit } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium({ backForwardCache: true })]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const secretBox = (page: Page) => page.getByRole('textbox', { name: 'The new API key', exact: true });

/** Signs in, creates a key and leaves the page with its secret showing; returns the page and the secret. */
async function leaveWithSecret() {
  const { page, context } = await openConsole(browser, server);
  await signInAdmin(page, server);
  await visit(page, '/keys', 'Account and API keys');
  await page.getByLabel('New key name').fill('deploy');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('Key "deploy" created.').waitFor();
  const secret = await secretBox(page).inputValue();
  expect(secret).toMatch(/^sg_/);
  await page.evaluate(() => {
    window.addEventListener('pageshow', (e) => {
      (window as { restored?: boolean }).restored = e.persisted;
    });
  });
  // Another document of the same origin, so that leaving is a navigation.
  await page.goto(`${origin(server)}/console/favicon.svg`);
  return { page, context, secret };
}

/** Back, and proof that the page came from the back-forward cache (a fresh load would make these tests pass vacuously). */
async function back(page: Page): Promise<void> {
  await page.goBack({ waitUntil: 'commit' });
  await expect.poll(() => page.evaluate(() => (window as { restored?: boolean }).restored)).toBe(true);
}

it('does not show a key secret again on Back', async () => {
  const { page, context, secret } = await leaveWithSecret();
  await back(page);
  await page.getByRole('heading', { level: 1, name: 'Account and API keys' }).waitFor();
  await page.locator('tbody tr', { hasText: 'deploy' }).waitFor();
  expect(await secretBox(page).count()).toBe(0);
  expect(await page.evaluate((s) => [...document.querySelectorAll('input')].some((i) => i.value === s) || document.body.innerText.includes(s), secret)).toBe(false);
  await context.close();
});

it('shows the sign-in, not the account, on Back after the session ended in another tab', async () => {
  const { page, context, secret } = await leaveWithSecret();
  const other = await context.newPage();
  await other.goto(`${origin(server)}/console`);
  await other.getByRole('navigation', { name: 'Main' }).waitFor();
  expect((await consoleCall(other, 'POST', '/session/logout', { csrf: await csrfToken(other) })).status).toBe(204);

  await back(page);
  await page.getByRole('heading', { name: 'Sign in to splitguard' }).waitFor();
  await page.getByText('Your session has ended. Please sign in again.').waitFor();
  expect(await secretBox(page).count()).toBe(0);
  expect(await page.getByRole('heading', { name: 'Account and API keys' }).count()).toBe(0);
  expect(await page.evaluate((s) => document.body.innerText.includes(s), secret)).toBe(false);
  await context.close();
});
