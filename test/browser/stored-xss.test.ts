// Stored XSS: names that hold markup (a route, the account, an API key, a
// custom blacklist entry's provider and note) are shown as literal text on
// every page that shows them. The check is on the DOM (no element was made
// from the data), not only on the script not running: the CSP would stop an
// inline handler anyway, and escaping must not depend on it.
import { beforeAll, expect, it } from 'vitest';
import { consoleCall, csrfToken, useSignedInConsole, visit } from '../helpers/browser.js';

const ROUTE = '<img src=x onerror=window.__xss=1>';
const ACCOUNT = '<script>window.__xss=2</script><b onmouseover=window.__xss=3>Acme</b>';
const KEY = '"><img src=x onerror=window.__xss=5>';
const PROVIDER = '<svg onload=window.__xss=4>';
const NOTE = '<iframe src=javascript:window.__xss=6>';

const c = useSignedInConsole();
let routeId = 0;
beforeAll(async () => {
  const csrf = await csrfToken(c.page);
  const route = await consoleCall(c.page, 'POST', '/v1/routes', { json: { name: ROUTE, page_a: 'https://a.example/', page_b: 'https://b.example/' }, csrf });
  expect(route.status).toBe(201);
  routeId = route.json.id;
  expect((await consoleCall(c.page, 'POST', '/keys', { json: { name: KEY }, csrf })).status).toBe(201);
  expect((await consoleCall(c.page, 'POST', '/v1/admin/blacklist', { json: { asn: 64501, provider: PROVIDER, category: 'proxy', note: NOTE }, csrf })).status).toBe(201);
});

/** Nothing was made from the data, nothing ran, and `texts` appear literally. */
async function expectInert(texts: string[]): Promise<void> {
  for (const t of texts) await c.page.getByText(t, { exact: true }).first().waitFor();
  expect(await c.page.locator('main img, main script, main svg:not(.chart), main iframe, main b, body > img').count()).toBe(0);
  expect(await c.page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
}

it('renames the account through the form to a name with markup', async () => {
  await visit(c.page, '/keys', 'Account and API keys');
  await c.page.getByLabel('Account name').fill(ACCOUNT);
  await c.page.getByRole('button', { name: 'Save name' }).click();
  await expect.poll(() => c.page.locator('#who').textContent()).toBe(`admin@localhost · ${ACCOUNT}`);
  await c.page.reload();
  await c.page.getByRole('heading', { level: 1, name: 'Account and API keys' }).waitFor();
  await expectInert([`${ACCOUNT} (id 1)`, KEY]);
  expect(await c.page.locator('#who').textContent()).toBe(`admin@localhost · ${ACCOUNT}`);
});

it('shows the route name as text in the list, on its page, in its form and in the delete dialog', async () => {
  await visit(c.page, '/routes', 'Routes');
  await expectInert([ROUTE]);
  await c.page.getByRole('link', { name: ROUTE }).click();
  await c.page.getByRole('heading', { level: 1, name: ROUTE }).waitFor();
  await expectInert([ROUTE]);
  expect(await c.page.getByLabel('Name', { exact: true }).inputValue()).toBe(ROUTE);
  expect(await c.page.title()).toBe(`${ROUTE} · splitguard`);
  await c.page.getByRole('button', { name: 'Delete route' }).click();
  await c.page.getByRole('dialog').getByText(`Delete route "${ROUTE}"?`, { exact: false }).waitFor();
  await c.page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await expectInert([ROUTE]);
  expect(routeId).toBeGreaterThan(0);
});

it('shows provider, note and account names as text on the admin pages', async () => {
  await visit(c.page, '/admin/blacklist?q=64501', 'ASN blacklist');
  await expectInert([PROVIDER, NOTE]);
  await visit(c.page, '/admin/accounts', 'Accounts');
  await c.page.locator('.account-name').first().waitFor();
  expect(await c.page.locator('tr[data-account-id="1"] .account-name').textContent()).toBe(`${ACCOUNT} (operator)`);
  await expectInert([]);
});
