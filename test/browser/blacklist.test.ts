// The admin's ASN blacklist page: search by ASN or name; disabling a built-in
// entry changes /v1/ip/check within a second, and enabling it restores it;
// custom entries are added with a note and removed after confirmation.
import { beforeAll, expect, it } from 'vitest';
import { screenshot, useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../helpers/routes.js';

const c = useSignedInConsole({ threads: 2, env: NO_RATE_LIMIT });
beforeAll(async () => {
  await visit(c.page, '/admin/blacklist', 'ASN blacklist');
});

/** asn_blacklist for 8.8.8.8 as an API client sees it, on one thread. */
const listed = async (thread: number) => (await api(c.server, 'GET', '/v1/ip/check?ip=8.8.8.8', undefined, { thread })).json.signals.asn_blacklist as boolean;
const row = (asn: number) => c.page.locator(`tr[data-asn="${asn}"]`);

async function search(term: string): Promise<void> {
  await c.page.getByLabel('Search by ASN or provider name').fill(term);
  await c.page.getByRole('button', { name: 'Search', exact: true }).click();
  await c.page.getByText(`matching "${term}"`).waitFor();
}

it('lists the built-in entries and finds them by ASN or by name', async () => {
  await c.page.getByText(/^[0-9]+ entries\./).waitFor();
  expect(await c.page.locator('tbody tr').count()).toBe(25);
  await screenshot(c.page, 'blacklist');

  await search('AS15169');
  expect(await c.page.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
  expect(await row(15169).locator('td').allTextContents()).toEqual(
    expect.arrayContaining(['AS15169', 'Google LLC', 'built-in', 'enabled']),
  );

  await search('amazon');
  const providers = await c.page.locator('tbody tr td:nth-child(2)').allTextContents();
  expect(providers.length).toBeGreaterThan(0);
  for (const p of providers) expect(p.toLowerCase()).toContain('amazon');
});

it('disabling AS15169 lets 8.8.8.8 through on every thread within a second; enabling restores it', async () => {
  expect(await listed(0)).toBe(true);
  expect(await listed(1)).toBe(true);
  await search('15169');

  const disabled = c.page.waitForResponse((r) => r.url().endsWith('/console/api/v1/admin/blacklist/15169') && r.request().method() === 'PUT');
  await c.page.getByRole('button', { name: 'Disable AS15169' }).click();
  expect((await disabled).status()).toBe(200);
  const off = await Promise.all([0, 1].map((t) => waitUntil(() => listed(t), (v) => v === false, 1000, 20)));
  for (const { ms } of off) expect(ms).toBeLessThan(1000);
  await row(15169).getByText('disabled').waitFor();
  const check = await api(c.server, 'GET', '/v1/ip/check?ip=8.8.8.8');
  expect(check.json).toMatchObject({ asn: 15169, signals: { asn_blacklist: false } });

  const enabled = c.page.waitForResponse((r) => r.url().endsWith('/console/api/v1/admin/blacklist/15169') && r.request().method() === 'PUT');
  await c.page.getByRole('button', { name: 'Enable AS15169' }).click();
  expect((await enabled).status()).toBe(200);
  const on = await Promise.all([0, 1].map((t) => waitUntil(() => listed(t), (v) => v === true, 1000, 20)));
  for (const { ms } of on) expect(ms).toBeLessThan(1000);
  await row(15169).getByText('enabled').waitFor();
});

it('adds a custom entry with a note and removes it after confirmation', async () => {
  await c.page.getByLabel('ASN', { exact: true }).fill('AS64500');
  await c.page.getByLabel('Provider name', { exact: true }).fill('Example Hosting Ltd');
  await c.page.getByLabel('Category', { exact: true }).selectOption('hosting');
  await c.page.getByLabel('Note', { exact: true }).fill('seen in abuse reports');
  await c.page.getByRole('button', { name: 'Add entry' }).click();
  await c.page.getByText('matching "64500"').waitFor();
  expect(await row(64500).locator('td').allTextContents()).toEqual(
    expect.arrayContaining(['AS64500', 'Example Hosting Ltd', 'hosting', 'custom', 'enabled', 'seen in abuse reports']),
  );
  const r = await api(c.server, 'GET', '/v1/admin/blacklist?q=64500');
  expect(r.json.data).toEqual([expect.objectContaining({ asn: 64500, built_in: false, enabled: true, note: 'seen in abuse reports' })]);

  // A duplicate is refused, naming the field.
  await c.page.getByLabel('ASN', { exact: true }).fill('64500');
  await c.page.getByLabel('Provider name', { exact: true }).fill('again');
  await c.page.getByRole('button', { name: 'Add entry' }).click();
  await expect.poll(() => c.page.getByLabel('ASN', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await c.page.locator('.field-error:visible').textContent()).toBe('asn is already on the blacklist');

  await row(64500).getByRole('button', { name: 'Remove AS64500' }).click();
  await c.page.getByRole('dialog').getByRole('button', { name: 'Remove entry' }).click();
  await c.page.getByText('No entries match.').waitFor();
  expect((await api(c.server, 'GET', '/v1/admin/blacklist?q=64500')).json.data).toEqual([]);
});

it('offers no remove button for built-in entries', async () => {
  await search('15169');
  expect(await row(15169).getByRole('button', { name: /Remove/ }).count()).toBe(0);
});
