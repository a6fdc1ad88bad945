// "Save changes" on the route page after the route was edited elsewhere: the
// form sends the whole variant list, so saving a weight from a page loaded
// before the edit would put back the list as it loaded it (the URL changed
// elsewhere reverted). The page names the version its form showed
// (If-Match): the save is refused with an alert saying the route changed
// and to reload, and the edit made elsewhere stays. After a reload the same
// change saves.
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

const stored = async (id: number) => (await api(server, 'GET', `/v1/routes/${id}`)).json.variants;

it('refuses to save over an edit made since the form loaded, and keeps that edit', async () => {
  const variants = [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }, { url: 'https://c.example/old', weight: 1 }];
  const route = (await api(server, 'POST', '/v1/routes', { name: 'Save after edit', variants, intercept_level: 'off' })).json;
  await visit(page, `/routes/${route.id}`, 'Save after edit');
  await page.getByLabel('Variant A weight').waitFor();

  // Elsewhere: C moves.
  const moved = [variants[0], variants[1], { url: 'https://c.example/NEW', weight: 1 }];
  expect((await api(server, 'PUT', `/v1/routes/${route.id}`, { variants: moved })).status).toBe(200);

  await page.getByLabel('Variant A weight').fill('5');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const alert = page.locator('form .form-error[role="alert"]');
  await alert.waitFor({ timeout: 5000 });
  expect(await alert.textContent()).toBe('the route has changed since this form was loaded; reload the page to see it, then make your change again');
  expect(await stored(route.id)).toEqual(moved.map((v, i) => ({ key: 'abc'[i], ...v })));

  // Reloaded, the form shows the route as stored, and the same change saves.
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Save after edit', exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.getByLabel('Variant C URL').inputValue()).toBe('https://c.example/NEW');
  await page.getByLabel('Variant A weight').fill('5');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => stored(route.id), { timeout: 5000 }).toEqual([
    { key: 'a', url: 'https://a.example/', weight: 5 },
    { key: 'b', url: 'https://b.example/', weight: 1 },
    { key: 'c', url: 'https://c.example/NEW', weight: 1 },
  ]);
  await expect.poll(() => page.locator('#toast').textContent()).toBe('Route saved');
});
