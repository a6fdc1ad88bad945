// The IP check page: one address or up to 50; each result shows the category,
// every signal and the decision at each level, matching the API's answer.
import { beforeAll, expect, it } from 'vitest';
import { screenshot, useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const c = useSignedInConsole({ env: NO_RATE_LIMIT });
beforeAll(async () => {
  await visit(c.page, '/ip', 'IP check');
});

const card = (ip: string) => c.page.locator(`article.ip-result[data-ip="${ip}"]`);

async function check(text: string, level = 'medium'): Promise<void> {
  await c.page.getByLabel('IP addresses').fill(text);
  await c.page.getByLabel('Level', { exact: true }).selectOption(level);
  const answered = c.page.waitForResponse((r) => r.url().includes('/console/api/v1/ip/check'));
  await c.page.getByRole('button', { name: 'Check', exact: true }).click();
  await answered;
}

it('checks one address: category, signals and the decision at each level', async () => {
  await check('8.8.8.8');
  const c = card('8.8.8.8');
  await c.waitFor();
  expect(await c.locator('header .badge').textContent()).toBe('Data center / cloud');
  expect(await c.locator('.verdict').textContent()).toBe('Intercepted at level medium');
  expect(await c.locator('.organization').textContent()).toBe('Google LLC');
  expect(await c.getByText('AS15169').count()).toBe(1);
  expect(await c.locator('[data-signal="asn_blacklist"]').textContent()).toBe('listed');
  expect(await c.locator('[data-signal="carrier_whitelist"]').textContent()).toBe('no match');
  expect(await c.locator('.levels li').allTextContents()).toEqual(['off: pass', 'low: intercept', 'medium: intercept', 'high: intercept']);
});

it('checks several addresses in one request, in order, each as the API answers it', async () => {
  const ips = ['8.8.8.8', '45.92.0.1', '91.103.32.1', '66.103.128.1', '::ffff:8.8.8.8', '192.0.2.1'];
  const batch = c.page.waitForRequest((r) => r.url().endsWith('/console/api/v1/ip/check') && r.method() === 'POST');
  await check(ips.join('\n'), 'high');
  expect((await batch).postDataJSON()).toEqual({ ips, level: 'high' });
  await card('192.0.2.1').waitFor();
  expect(await c.page.locator('article.ip-result').evaluateAll((as) => as.map((a) => a.getAttribute('data-ip')))).toEqual(ips);

  const expected = (await api(c.server, 'POST', '/v1/ip/check', { ips, level: 'high' })).json.results;
  for (const r of expected) {
    const c = card(r.ip);
    const levels = await c.locator('.levels li[data-level]').allTextContents();
    expect(levels).toEqual(['low', 'medium', 'high'].map((l) => `${l}: ${r.intercept[l] ? 'intercept' : 'pass'}`));
    expect(await c.locator('.verdict').textContent()).toBe(r.intercepted ? 'Intercepted at level high' : 'Passes at level high');
    const word = (w: string | null) => (w ? `"${w}"` : 'no match');
    expect(await c.locator('[data-signal="org_keyword"]').textContent()).toBe(word(r.signals.org_keyword));
    expect(await c.locator('[data-signal="vpn_proxy"]').textContent()).toBe(word(r.signals.vpn_proxy));
    expect(await c.locator('[data-signal="carrier_whitelist"]').textContent()).toBe(word(r.signals.carrier_whitelist));
  }
  expect(await card('45.92.0.1').locator('header .badge').textContent()).toBe('VPN / proxy');
  expect(await card('91.103.32.1').locator('header .badge').textContent()).toBe('Carrier / ISP');
  expect(await card('192.0.2.1').locator('header .badge').textContent()).toBe('Not in the database');
  await screenshot(c.page, 'ip-check');
});

it('refuses more than 50 addresses and names a bad entry', async () => {
  await c.page.getByLabel('IP addresses').fill(Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`).join(' '));
  await c.page.getByRole('button', { name: 'Check', exact: true }).click();
  const msg = c.page.locator('.field-error:visible');
  await msg.waitFor();
  expect(await msg.textContent()).toBe('enter 1 to 50 addresses (got 51)');

  await check('8.8.8.8, not-an-address');
  await expect.poll(() => msg.textContent()).toBe('ips[1] is not a valid IPv4 or IPv6 address: "not-an-address"');
  expect(await c.page.getByLabel('IP addresses').getAttribute('aria-invalid')).toBe('true');
});
