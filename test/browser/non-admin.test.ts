// A console user without the admin flag (here on the bootstrap account, whose
// account record is an operator's: the user's own flag decides) sees no admin
// navigation, gets "Not found" for the admin pages, and 404 from every admin
// endpoint of the console API, exactly as for a path that does not exist.
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { consoleCall, csrfToken, openConsole, signIn, useConsoleBrowser } from '../helpers/browser.js';
import { runCliJson } from '../helpers/cli.js';
import { api } from '../helpers/routes.js';

const ctx = useConsoleBrowser();
let page: Page;
let token = '';
beforeAll(async () => {
  const user = await runCliJson(['user', 'create', '--email', 'u@x.y', '--password', 'longenough1', '--account', String(ctx.server.accountId)], ctx.server.dataDir);
  expect(user).toEqual({ email: 'u@x.y', admin: false, account_id: ctx.server.accountId });
  ({ page } = await openConsole(ctx.browser, ctx.server));
  await signIn(page, 'u@x.y', 'longenough1');
  token = await csrfToken(page);
});

it('shows no admin pages in the navigation', async () => {
  const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
  expect(links).toEqual(['API keys', 'Routes', 'IP check', 'Database']);
  expect((await consoleCall(page, 'GET', '/session')).json).toMatchObject({ email: 'u@x.y', admin: false });
});

it('answers "Not found" for the admin pages typed into the address bar', async () => {
  for (const path of ['/admin/blacklist', '/admin/accounts']) {
    await page.evaluate((p) => {
      window.location.hash = p;
    }, path);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    expect(await page.locator('table').count()).toBe(0);
  }
});

it('gets 404 from every admin endpoint, reads and changes alike', async () => {
  const calls: [string, string, unknown?][] = [
    ['GET', '/v1/admin/blacklist'],
    ['GET', '/v1/admin/blacklist?q=google'],
    ['POST', '/v1/admin/blacklist', { asn: 64500, provider: 'x', category: 'hosting' }],
    ['PUT', '/v1/admin/blacklist/15169', { enabled: false }],
    ['DELETE', '/v1/admin/blacklist/64500'],
    ['GET', '/accounts'],
    ['PUT', `/accounts/${ctx.server.accountId}`, { quota: 5 }],
    // Methods they do not have and bodies they would refuse: still 404, not 405 or 400.
    ['PATCH', '/v1/admin/blacklist', { enabled: false }],
    ['POST', '/v1/admin/blacklist', { nonsense: true }],
    ['DELETE', '/accounts'],
    ['PUT', '/accounts/1', { quota: 'many' }],
  ];
  for (const [method, path, json] of calls) {
    const r = await consoleCall(page, method, path, { json, csrf: token });
    expect(r.status, `${method} ${path}`).toBe(404);
    expect(r.json.code).toBe('not_found');
  }
  // Nothing changed.
  expect((await api(ctx.server, 'GET', '/v1/ip/check?ip=8.8.8.8')).json.signals.asn_blacklist).toBe(true);
  expect((await api(ctx.server, 'GET', '/v1/account')).json.quota).toBe(1000);
});

it('still uses the non-admin pages of its account', async () => {
  const r = await consoleCall(page, 'POST', '/v1/routes', { json: { name: 'by u', page_a: 'https://a.example/', page_b: 'https://b.example/' }, csrf: token });
  expect(r.status).toBe(201);
  expect((await api(ctx.server, 'GET', `/v1/routes/${r.json.id}`)).json.name).toBe('by u');
});
