// The routes pages: create a route through the form, see its short link (with
// a copy button), follow the short link as a visitor would (a real 302 from
// the server), and see the click in the route page's chart; the list pages;
// edit; delete after confirmation.
import { expect, it } from 'vitest';
import { screenshot, useSignedInConsole, visit } from '../helpers/browser.js';
import { call } from '../helpers/client.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../helpers/routes.js';

const c = useSignedInConsole({ env: { ...NO_RATE_LIMIT, SPLITGUARD_SHORT_BASE: 'https://go.example.com' } });

const today = () => new Date().toISOString().slice(0, 10);
let code = '';
let routeId = 0;

it('creates a route through the form and shows its short link', async () => {
  await visit(c.page, '/routes', 'Routes');
  await c.page.getByText('No routes yet.').waitFor();
  await c.page.getByRole('link', { name: 'New route' }).click();
  await c.page.getByRole('heading', { name: 'New route' }).waitFor();
  await c.page.getByLabel('Name', { exact: true }).fill('Spring promo');
  await c.page.getByLabel('Page A URL').fill(PAGE_A);
  await c.page.getByLabel('Page B URL').fill(PAGE_B);
  await c.page.getByLabel('Share of real visitors sent to page A (%)').fill('100');
  await c.page.getByLabel('Interception level').selectOption('off');
  await screenshot(c.page, 'route-new');
  await c.page.getByRole('button', { name: 'Create route' }).click();

  await c.page.getByRole('heading', { level: 1, name: 'Spring promo' }).waitFor();
  routeId = Number(/#\/routes\/([0-9]+)$/.exec(c.page.url())![1]);
  const shortUrl = await c.page.locator('.short-url').textContent();
  expect(shortUrl).toMatch(/^https:\/\/go\.example\.com\/r\/[0-9A-Za-z]{8}$/);
  code = shortUrl!.slice(-8);

  await c.page.getByRole('button', { name: 'Copy the short link of Spring promo' }).click();
  expect(await c.page.evaluate(() => navigator.clipboard.readText())).toBe(shortUrl);

  const r = await api(c.server, 'GET', `/v1/routes/${routeId}`);
  expect(r.json).toMatchObject({ name: 'Spring promo', page_a: PAGE_A, page_b: PAGE_B, split_ratio: 1, intercept_level: 'off', code });
});

it('shows a visit to the short link in the clicks chart within 3 seconds', async () => {
  const bar = c.page.locator(`.chart-clicks rect[data-key="${today()}"]`);
  expect(await bar.getAttribute('data-value')).toBe('0');

  const visitAt = Date.now();
  const r = await call(c.server.ports[0], c.server.ca, 'GET', `/r/${code}`);
  expect(r.status).toBe(302);
  expect(r.headers.location).toBe(PAGE_A);

  await expect.poll(() => bar.getAttribute('data-value'), { timeout: 3000, interval: 100 }).toBe('1');
  expect(Date.now() - visitAt).toBeLessThan(3500);
  // The other charts and the summary agree.
  expect(await c.page.locator('.chart-groups rect[data-key="a"]').getAttribute('data-value')).toBe('1');
  expect(await c.page.locator('.chart-groups rect[data-key="b"]').getAttribute('data-value')).toBe('0');
  expect(await c.page.locator('.stats-summary').textContent()).toMatch(/^1 clicks from .*: 1 to A, 0 to B, 0 intercepted\.$/);
  // Seven labelled days, oldest first, and titled axes.
  const days = await c.page.locator('.chart-clicks rect').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-key')));
  expect(days).toHaveLength(7);
  expect(days[6]).toBe(today());
  expect(await c.page.locator('.chart-clicks .axis-title').allTextContents()).toEqual(['Day (UTC, month-day)', 'Clicks']);

  // A few more visits for a fuller picture.
  for (let i = 0; i < 4; i++) await call(c.server.ports[0], c.server.ca, 'GET', `/r/${code}`);
  await expect.poll(() => bar.getAttribute('data-value'), { timeout: 3000, interval: 100 }).toBe('5');
  await screenshot(c.page, 'route');
});

it('edits the route: only the changed fields are sent and the page follows', async () => {
  await c.page.getByLabel('Name', { exact: true }).fill('Spring promo (EU)');
  await c.page.getByLabel('Share of real visitors sent to page A (%)').fill('25');
  await c.page.getByRole('button', { name: 'Save changes' }).click();
  await c.page.getByRole('heading', { level: 1, name: 'Spring promo (EU)' }).waitFor();
  await c.page.getByText('25 % of real visitors to A, the rest to B').waitFor();
  const r = await api(c.server, 'GET', `/v1/routes/${routeId}`);
  expect(r.json).toMatchObject({ name: 'Spring promo (EU)', split_ratio: 0.25, page_a: PAGE_A, intercept_level: 'off' });
});

it('shows a refused field next to its input', async () => {
  await c.page.getByLabel('Page B URL').fill('javascript:alert(1)');
  await c.page.getByRole('button', { name: 'Save changes' }).click();
  const input = c.page.getByLabel('Page B URL');
  await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
  expect(await c.page.locator('.field-error:visible').textContent()).toBe('page_b must use http or https');
  expect((await api(c.server, 'GET', `/v1/routes/${routeId}`)).json.page_b).toBe(PAGE_B);
});

it('lists routes 20 to a page, newest first, with paging', async () => {
  for (let i = 1; i <= 21; i++) await createRoute(c.server, { name: `bulk ${String(i).padStart(2, '0')}` });
  await visit(c.page, '/routes', 'Routes');
  await c.page.getByText('Page 1 of 2 · 22 routes').waitFor();
  const names = await c.page.locator('tbody tr td:first-child').allTextContents();
  expect(names).toHaveLength(20);
  expect(names[0]).toBe('bulk 21');
  await screenshot(c.page, 'routes');
  await c.page.getByRole('link', { name: 'Next' }).click();
  await c.page.getByText('Page 2 of 2 · 22 routes').waitFor();
  expect(await c.page.locator('tbody tr td:first-child').allTextContents()).toEqual(['bulk 01', 'Spring promo (EU)']);
});

it('deletes the route after confirmation; its short link then answers 404', async () => {
  await c.page.getByRole('link', { name: 'Spring promo (EU)' }).click();
  await c.page.getByRole('heading', { level: 1, name: 'Spring promo (EU)' }).waitFor();
  await c.page.getByRole('button', { name: 'Delete route' }).click();
  const dialog = c.page.getByRole('dialog');
  await dialog.getByText('Delete route "Spring promo (EU)"?').waitFor();
  await dialog.getByRole('button', { name: 'Delete route' }).click();
  await c.page.getByRole('heading', { level: 1, name: 'Routes' }).waitFor();
  expect((await call(c.server.ports[0], c.server.ca, 'GET', `/r/${code}`)).status).toBe(404);
  expect((await api(c.server, 'GET', `/v1/routes/${routeId}`)).status).toBe(404);
});
