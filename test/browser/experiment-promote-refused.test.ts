// A refused "Promote" is shown on the route page: the route is deleted
// through the API after the page loaded, and promoting one of its variants
// then puts the server's answer in an alert above the experiment table
// instead of failing silently.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, signInAdmin, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: NO_RATE_LIMIT }), launchChromium()]);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('shows the error when the promote is refused', async () => {
  const route = (await api(server, 'POST', '/v1/routes', {
    name: 'Promote refused', page_a: 'https://a.example/', page_b: 'https://b.example/', intercept_level: 'off',
  })).json;
  await visit(page, `/routes/${route.id}`, 'Promote refused');
  const row = page.locator('table.experiment tr[data-variant="b"]');
  await row.waitFor();
  expect((await api(server, 'DELETE', `/v1/routes/${route.id}`)).status).toBe(204);

  await row.getByRole('button', { name: 'Promote variant B' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Promote' }).click();
  const alert = page.locator('.form-error[role="alert"]');
  await alert.waitFor({ timeout: 5000 });
  expect(await alert.textContent()).toBe(`Variant B was not promoted: not found: route ${route.id} does not exist`);
  expect(await page.locator('#toast').textContent()).not.toMatch(/promoted to 100/);
});
