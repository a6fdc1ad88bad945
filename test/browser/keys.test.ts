// The API keys page: a key created with a name is shown once (with a copy
// button), works against /v1 at once, shows when it was last used, and stops
// working at once when revoked; a reset key replaces the old secret.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { call } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
  await visit(page, '/keys', 'Account and API keys');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const v1 = (key: string) => call(server.ports[0], server.ca, 'GET', '/v1/account', key);
const row = (name: string) => page.locator('tbody tr', { hasText: name });

async function createKey(name: string): Promise<string> {
  await page.getByLabel('New key name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  // The notice names the key: an earlier key's notice may still be showing.
  await page.getByText(`Key "${name}" created.`).waitFor();
  return page.getByRole('textbox', { name: 'The new API key', exact: true }).inputValue();
}

it('creates a key that is shown once and works against /v1 at once', async () => {
  const key = await createKey('ci deploy');
  expect(key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);
  await page.getByText('Copy it now: it is shown only once.').waitFor();
  await row('ci deploy').waitFor();
  await screenshot(page, 'keys');

  // The copy button puts the secret on the clipboard.
  await page.getByRole('button', { name: 'Copy the new API key' }).click();
  await page.getByRole('button', { name: 'Copy the new API key' }).filter({ hasText: 'Copied' }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  const r = await v1(key);
  expect(r.status).toBe(200);
  expect(r.json.id).toBe(server.accountId);

  // Dismissed, the secret is gone from the page and the list shows only its prefix.
  await page.getByRole('button', { name: 'I have copied it' }).click();
  expect(await page.getByRole('textbox', { name: 'The new API key', exact: true }).count()).toBe(0);
  expect(await page.content()).not.toContain(key);
  expect(await row('ci deploy').locator('code').textContent()).toBe(`${key.slice(0, 9)}…`);

  // "Last used" follows the use (this thread's record, before the 30 s flush).
  await page.reload();
  await row('ci deploy').waitFor();
  expect(await row('ci deploy').locator('.last-used').textContent()).toMatch(/just now/);
});

it('revokes a key after confirmation: the next /v1 request with it is 401', async () => {
  const key = await createKey('to revoke');
  expect((await v1(key)).status).toBe(200);
  await row('to revoke').getByRole('button', { name: 'Revoke' }).click();
  const dialog = page.getByRole('dialog');
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
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  expect(await page.getByRole('dialog').count()).toBe(0);
  expect(await row('kept').getByText('active').count()).toBe(1);
  expect((await v1(key)).status).toBe(200);
});

it('resets a key: the new secret is shown once and the old one stops working', async () => {
  const old = await createKey('rotating');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await row('rotating').getByRole('button', { name: 'Reset' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Reset key' }).click();
  await page.getByText('Key "rotating" reset: the old key no longer works.').waitFor();
  const fresh = await page.getByRole('textbox', { name: 'The new API key', exact: true }).inputValue();
  expect(fresh).not.toBe(old);
  expect((await v1(old)).status).toBe(401);
  expect((await v1(fresh)).status).toBe(200);
  // The list shows the revoked old key and the live new one under the same name.
  await expect.poll(() => row('rotating').count()).toBe(2);
});

it('refuses an empty key name, naming the field', async () => {
  await page.getByLabel('New key name').fill('   ');
  await page.getByRole('button', { name: 'Create key' }).click();
  const input = page.getByLabel('New key name');
  await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('.field-error:visible').textContent()).toBe('name must be 1 to 100 characters after trimming');
});
