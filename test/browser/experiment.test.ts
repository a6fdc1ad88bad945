// The route page's experiment panel in Chromium: a route of three variants
// with click ids, real redirects and real conversions; the table shows the
// API's figures per variant, the SVG draws each rate with its interval, the
// SRM banner appears when the split is held back, "promote" sends everyone
// to one variant while the history stays, and the route form edits variants
// and weights (adding a fourth).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bucket } from '../../src/redirect/visitor.js';
import { launchChromium, openConsole, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { api, inParallel, NO_RATE_LIMIT, RedirectClient } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let client: RedirectClient;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ env: NO_RATE_LIMIT }), launchChromium()]);
  client = new RedirectClient(server);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
});
afterAll(async () => {
  client?.close();
  await browser?.close();
  await server?.close();
});

const url = (k: string) => `https://${k}.example.com/`;
const idOf = (seed: string, i: number) => `${seed}${String(i).padStart(22 - seed.length, '0')}`;

it('shows per-variant figures, rate intervals and promote', async () => {
  const route = (await api(server, 'POST', '/v1/routes', {
    name: 'Pricing test', variants: [{ url: url('a'), weight: 1 }, { url: url('b'), weight: 1 }, { url: url('c'), weight: 1 }],
    append_click_id: true, intercept_level: 'off',
  })).json;
  const tokens: { k: string; id: string }[] = [];
  await inParallel(Array.from({ length: 300 }, (_, i) => idOf('ui', i)), 16, async (visitor) => {
    const v = await client.visit(route.code, { visitor });
    const m = /^https:\/\/([abc])\.example\.com\/\?sg_cid=(.+)$/.exec(v.location!)!;
    tokens.push({ k: m[1], id: m[2] });
  });
  // b converts best: every 3rd of its visitors; a and c every 10th.
  const perVariant = { a: 0, b: 0, c: 0 } as Record<string, number>;
  const converted = { a: 0, b: 0, c: 0 } as Record<string, number>;
  for (const t of tokens) {
    if (perVariant[t.k]++ % (t.k === 'b' ? 3 : 10) !== 0) continue;
    expect((await api(server, 'POST', '/v1/conversions', { click_id: t.id, goal: 'signup' })).status).toBe(202);
    converted[t.k]++;
  }
  await new Promise((r) => setTimeout(r, 1500)); // one click flush
  await visit(page, `/routes/${route.id}`, 'Pricing test');
  const row = (k: string) => page.locator(`table.experiment tr[data-variant="${k}"]`);
  await expect.poll(() => row('a').locator('[data-col="clicks"]').textContent(), { timeout: 5000 }).toBe(String(perVariant.a));
  // The goal list has "conversion" and "signup"; the panel follows the choice.
  await page.getByLabel('Goal', { exact: true }).selectOption('signup');
  await expect.poll(() => row('b').locator('[data-col="conversions"]').textContent()).toBe(String(converted.b));
  const exp = (await api(server, 'GET', `/v1/routes/${route.id}`)).json.experiment;
  for (const v of exp.variants) {
    expect(await row(v.key).locator('[data-col="visitors"]').textContent()).toBe(String(v.visitors));
    expect(await row(v.key).locator('[data-col="conversions"]').textContent()).toBe(String(converted[v.key]));
    const g = v.conversions.signup;
    expect(await row(v.key).locator('[data-col="rate"]').textContent()).toBe(`${(g.rate * 100).toFixed(2)} % (${(g.ci95[0] * 100).toFixed(2)} % – ${(g.ci95[1] * 100).toFixed(2)} %)`);
    // The interval chart draws the same numbers.
    const mark = page.locator(`.chart-rates g.interval[data-key="${v.key}"]`);
    expect(Number(await mark.getAttribute('data-rate'))).toBe(g.rate);
    expect(Number(await mark.getAttribute('data-low'))).toBe(g.ci95[0]);
    expect(Number(await mark.getAttribute('data-high'))).toBe(g.ci95[1]);
  }
  expect(await page.locator('.srm-alert').count()).toBe(0);
  // Where visitors went names every variant, C included (stats.groups).
  await expect.poll(() => page.locator('.stats-summary').textContent(), { timeout: 5000 }).toMatch(new RegExp(`: ${perVariant.a} to A, ${perVariant.b} to B, ${perVariant.c} to C, 0 intercepted\\.$`));
  for (const k of ['a', 'b', 'c']) expect(await page.locator(`.chart-groups rect[data-key="${k}"]`).getAttribute('data-value')).toBe(String(perVariant[k]));
  await screenshot(page, 'route-experiment');

  await row('b').getByRole('button', { name: 'Promote variant B' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Send every real visitor to variant B?').waitFor();
  await dialog.getByRole('button', { name: 'Promote' }).click();
  await expect.poll(async () => (await api(server, 'GET', `/v1/routes/${route.id}`)).json.variants.map((v: { weight: number }) => v.weight)).toEqual([0, 100, 0]);
  // History stays with the keys.
  const after = (await api(server, 'GET', `/v1/routes/${route.id}`)).json.experiment;
  expect(after.variants.map((v: { clicks: number }) => v.clicks)).toEqual(exp.variants.map((v: { clicks: number }) => v.clicks));
  await expect.poll(() => row('a').locator('[data-col="weight"]').textContent(), { timeout: 3000 }).toBe('0');
  // Everyone now goes to b.
  for (let i = 0; i < 5; i++) expect((await client.visit(route.code, { visitor: idOf('after', i) })).location).toMatch(/^https:\/\/b\.example\.com\//);
});

it('shows the SRM banner when the split is held back', async () => {
  const route = (await api(server, 'POST', '/v1/routes', { name: 'Skewed', page_a: url('a'), page_b: url('b'), intercept_level: 'off' })).json;
  const ids: string[] = [];
  let b = 0;
  for (let i = 0; ids.length < 200; i++) {
    const id = idOf('skew', i);
    if (bucket(route.id, id) < 0.5) ids.push(id);
    else if (b < 60) {
      ids.push(id);
      b++;
    }
  }
  await inParallel(ids, 16, (visitor) => client.visit(route.code, { visitor }));
  await visit(page, `/routes/${route.id}`, 'Skewed');
  await page.locator('.srm-alert').waitFor({ timeout: 5000 });
  expect(await page.getByRole('alert').first().textContent()).toMatch(/^Sample-ratio mismatch/);
});

it('edits variants and weights in the route form', async () => {
  const route = (await api(server, 'POST', '/v1/routes', { name: 'Form', page_a: url('a'), page_b: url('b'), intercept_level: 'off' })).json;
  await visit(page, `/routes/${route.id}`, 'Form');
  await page.getByRole('button', { name: 'Use more variants' }).click();
  await page.getByRole('button', { name: 'Add variant' }).click();
  await page.getByLabel('Variant C URL').fill(url('c'));
  await page.getByLabel('Variant A weight').fill('20');
  await page.getByLabel('Variant B weight').fill('30');
  await page.getByLabel('Variant C weight').fill('50');
  await page.getByLabel('Intercepted visitors go to').selectOption('c');
  await page.getByLabel('Append a click id').check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(async () => (await api(server, 'GET', `/v1/routes/${route.id}`)).json.variants, { timeout: 5000 }).toEqual([
    { key: 'a', url: url('a'), weight: 20 }, { key: 'b', url: url('b'), weight: 30 }, { key: 'c', url: url('c'), weight: 50 },
  ]);
  const r = (await api(server, 'GET', `/v1/routes/${route.id}`)).json;
  expect(r).toMatchObject({ default_group: 'c', append_click_id: true, split_ratio: null });
  // A refused weight is shown next to its input.
  await page.getByLabel('Variant B weight').fill('-1');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => page.getByLabel('Variant B weight').getAttribute('aria-invalid')).toBe('true');
});
