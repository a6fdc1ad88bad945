// The admin's accounts page: every account with its logins, routes created
// and quota; a quota set there applies to the account's next /v1 request.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { runCliJson } from '../helpers/cli.js';
import { api, createRoute, NO_RATE_LIMIT } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let customer: { account_id: number; api_key: string };
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: NO_RATE_LIMIT }), launchChromium()]);
  customer = await runCliJson(['account', 'create', '--name', 'Acme Corp', '--quota', '3'], server.dataDir);
  await runCliJson(['user', 'create', '--email', 'ops@acme.example', '--password', 'a-long-password', '--account', String(customer.account_id)], server.dataDir);
  await runCliJson(['account', 'create', '--name', 'Globex', '--quota', '50'], server.dataDir);
  for (let i = 0; i < 2; i++) await createRoute(server, { name: `acme ${i}` }, { key: customer.api_key });
  for (let i = 0; i < 4; i++) await createRoute(server, { name: `ops ${i}` });
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
  await visit(page, '/admin/accounts', 'Accounts');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const cells = (id: number) => page.locator(`tr[data-account-id="${id}"] td`).allTextContents();

it('lists every account with its logins, routes created and remaining quota', async () => {
  await page.locator(`tr[data-account-id="${customer.account_id}"]`).waitFor();
  expect(await page.locator('tbody tr').count()).toBe(3);
  const acme = await cells(customer.account_id);
  expect(acme.slice(0, 5)).toEqual([String(customer.account_id), 'Acme Corp', 'ops@acme.example', '2', '1']);
  expect(await page.getByLabel(`Quota of account ${customer.account_id}`).inputValue()).toBe('3');
  expect((await cells(server.accountId)).slice(0, 5)).toEqual(['1', 'default (operator)', 'admin@localhost (admin)', '4', '996']);
  await screenshot(page, 'accounts');
});

it('sets a quota that the account meets on its next request', async () => {
  // At 2 of 3 the account may create one more route; at a quota of 2 it may not.
  await page.getByLabel(`Quota of account ${customer.account_id}`).fill('2');
  await page.locator(`tr[data-account-id="${customer.account_id}"]`).getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await cells(customer.account_id))[4]).toBe('0');
  const account = await api(server, 'GET', '/v1/account', undefined, { key: customer.api_key });
  expect(account.json).toMatchObject({ quota: 2, routes_created: 2, quota_remaining: 0 });
  const refused = await api(server, 'POST', '/v1/routes', { name: 'one more', page_a: 'https://a.example/', page_b: 'https://b.example/' }, { key: customer.api_key });
  expect(refused.status).toBe(403);
  expect(refused.json.code).toBe('quota_exceeded');

  await page.getByLabel(`Quota of account ${customer.account_id}`).fill('10');
  await page.locator(`tr[data-account-id="${customer.account_id}"]`).getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await cells(customer.account_id))[4]).toBe('8');
  expect((await createRoute(server, { name: 'one more' }, { key: customer.api_key })).name).toBe('one more');
});

it('refuses a quota that is not a whole number, naming the field', async () => {
  await page.getByLabel(`Quota of account ${customer.account_id}`).fill('-1');
  await page.locator(`tr[data-account-id="${customer.account_id}"]`).getByRole('button', { name: 'Save' }).click();
  await expect.poll(() => page.locator('.field-error:visible').textContent().catch(() => null)).toBe('quota must be an integer from 0 to 1000000000');
  expect((await api(server, 'GET', '/v1/account', undefined, { key: customer.api_key })).json.quota).toBe(10);
});
