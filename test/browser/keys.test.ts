// The API keys page: a key created with a name is shown once (with a copy
// button), works against /v1 at once, shows when it was last used, and stops
// working at once when revoked; a reset key replaces the old secret. The
// account panel shows the routes created and the conversions stored against
// their quotas.
import { beforeAll, expect, it } from 'vitest';
import { screenshot, useSignedInConsole, visit } from '../helpers/browser.js';
import { call } from '../helpers/client.js';
import { clickIdRoute, mintClickIds } from '../helpers/conversion-quota.js';
import { api, RedirectClient } from '../helpers/routes.js';

const c = useSignedInConsole();
beforeAll(async () => {
  await visit(c.page, '/keys', 'Account and API keys');
});

const v1 = (key: string) => call(c.server.ports[0], c.server.ca, 'GET', '/v1/account', key);
const row = (name: string) => c.page.locator('tbody tr', { hasText: name });

async function createKey(name: string): Promise<string> {
  await c.page.getByLabel('New key name').fill(name);
  await c.page.getByRole('button', { name: 'Create key' }).click();
  // The notice names the key: an earlier key's notice may still be showing.
  await c.page.getByText(`Key "${name}" created.`).waitFor();
  return c.page.getByRole('textbox', { name: 'The new API key', exact: true }).inputValue();
}

it('creates a key that is shown once and works against /v1 at once', async () => {
  const key = await createKey('ci deploy');
  expect(key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);
  await c.page.getByText('Copy it now: it is shown only once.').waitFor();
  await row('ci deploy').waitFor();
  await screenshot(c.page, 'keys');

  // The copy button puts the secret on the clipboard.
  await c.page.getByRole('button', { name: 'Copy the new API key' }).click();
  await c.page.getByRole('button', { name: 'Copy the new API key' }).filter({ hasText: 'Copied' }).waitFor();
  expect(await c.page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  const r = await v1(key);
  expect(r.status).toBe(200);
  expect(r.json.id).toBe(c.server.accountId);

  // Dismissed, the secret is gone from the page and the list shows only its prefix.
  await c.page.getByRole('button', { name: 'I have copied it' }).click();
  expect(await c.page.getByRole('textbox', { name: 'The new API key', exact: true }).count()).toBe(0);
  expect(await c.page.content()).not.toContain(key);
  expect(await row('ci deploy').locator('code').textContent()).toBe(`${key.slice(0, 9)}…`);

  // "Last used" follows the use (this thread's record, before the 30 s flush).
  await c.page.reload();
  await row('ci deploy').waitFor();
  expect(await row('ci deploy').locator('.last-used').textContent()).toMatch(/just now/);
});

it('revokes a key after confirmation: the next /v1 request with it is 401', async () => {
  const key = await createKey('to revoke');
  expect((await v1(key)).status).toBe(200);
  await row('to revoke').getByRole('button', { name: 'Revoke' }).click();
  const dialog = c.page.getByRole('dialog');
  await dialog.getByText('Revoke key "to revoke"?').waitFor();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await row('to revoke').getByText('revoked').waitFor();
  const r = await v1(key);
  expect(r.status).toBe(401);
  expect(r.json.code).toBe('unauthorized');
});

it('cancelling the confirmation keeps the key', async () => {
  const key = await createKey('kept');
  await row('kept').getByRole('button', { name: 'Revoke' }).click();
  await c.page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  expect(await c.page.getByRole('dialog').count()).toBe(0);
  expect(await row('kept').getByText('active').count()).toBe(1);
  expect((await v1(key)).status).toBe(200);
});

it('resets a key: the new secret is shown once and the old one stops working', async () => {
  const old = await createKey('rotating');
  await c.page.getByRole('button', { name: 'I have copied it' }).click();
  await row('rotating').getByRole('button', { name: 'Reset' }).click();
  await c.page.getByRole('dialog').getByRole('button', { name: 'Reset key' }).click();
  await c.page.getByText('Key "rotating" reset: the old key no longer works.').waitFor();
  const fresh = await c.page.getByRole('textbox', { name: 'The new API key', exact: true }).inputValue();
  expect(fresh).not.toBe(old);
  expect((await v1(old)).status).toBe(401);
  expect((await v1(fresh)).status).toBe(200);
  // The list shows the revoked old key and the live new one under the same name.
  await expect.poll(() => row('rotating').count()).toBe(2);
});

it('refuses an empty key name, naming the field', async () => {
  await c.page.getByLabel('New key name').fill('   ');
  await c.page.getByRole('button', { name: 'Create key' }).click();
  const input = c.page.getByLabel('New key name');
  await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
  expect(await c.page.locator('.field-error:visible').textContent()).toBe('name must be 1 to 100 characters after trimming');
});

it('shows the conversions the account stores against the conversion quota', async () => {
  const fact = (term: string) => c.page.locator('dl.facts dt', { hasText: term }).locator('xpath=following-sibling::dd[1]').textContent();
  expect(await fact('Conversions stored')).toBe('0 of 10,000,000 (10,000,000 left)');

  const route = await clickIdRoute(c.server);
  const client = new RedirectClient(c.server);
  try {
    const [id] = await mintClickIds(client, route.code, 1);
    for (const goal of ['conversion', 'signup']) expect((await api(c.server, 'POST', '/v1/conversions', { click_id: id, goal })).status).toBe(202);
  } finally {
    client.close();
  }
  await visit(c.page, '/routes', 'Routes');
  await visit(c.page, '/keys', 'Account and API keys');
  expect(await fact('Routes created')).toBe('1 of 1000 (999 left)');
  expect(await fact('Conversions stored')).toBe('2 of 10,000,000 (9,999,998 left)');
});
