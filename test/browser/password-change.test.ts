// Changing the password on the account page, in Chromium: the form says
// when the two new passwords differ and when the current one is wrong (next
// to the field, still signed in); a change signs the user's other device
// out, and this page goes on in its new session: its next change is taken
// (the new session's CSRF token), and the new password signs in.
import { beforeAll, expect, it } from 'vitest';
import { createConsoleUser } from '../helpers/console-session.js';
import { consoleCall, openConsole, signIn, useConsoleBrowser, visit } from '../helpers/browser.js';

const ctx = useConsoleBrowser();
const EMAIL = 'kit@example.com';
beforeAll(async () => {
  await createConsoleUser(ctx.server, EMAIL, 'the-old-password');
});

it('changes the password, signs the other device out and stays signed in', async () => {
  const laptop = await openConsole(ctx.browser, ctx.server);
  await signIn(laptop.page, EMAIL, 'the-old-password');
  const phone = await openConsole(ctx.browser, ctx.server);
  await signIn(phone.page, EMAIL, 'the-old-password');
  const page = laptop.page;
  await visit(page, '#/keys', 'Account and API keys');

  const change = page.getByRole('form', { name: 'Change password' });
  await change.getByLabel('Current password').fill('the-old-password');
  await change.getByLabel('New password (10 or more characters)').fill('a-brand-new-password');
  await change.getByLabel('Repeat the new password').fill('a-brand-new-passwort');
  await change.getByRole('button', { name: 'Change password' }).click();
  await change.getByText('the two new passwords differ').waitFor();

  await change.getByLabel('Current password').fill('a-wrong-guess');
  await change.getByLabel('Repeat the new password').fill('a-brand-new-password');
  await change.getByRole('button', { name: 'Change password' }).click();
  await change.getByText('current_password is not the password of this user').waitFor();
  expect((await consoleCall(phone.page, 'GET', '/session')).status).toBe(200);

  await change.getByLabel('Current password').fill('the-old-password');
  await change.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed; 1 other session signed out').waitFor();
  expect(await change.getByLabel('Current password').inputValue()).toBe('');
  expect((await consoleCall(phone.page, 'GET', '/session')).status).toBe(401);

  // Still signed in, and a change is taken with the new session's token.
  await page.getByLabel('Account name').fill('renamed after the change');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('Account name saved').waitFor();
  await laptop.context.close();

  const later = await openConsole(ctx.browser, ctx.server);
  await signIn(later.page, EMAIL, 'a-brand-new-password');
  await later.context.close();
  await phone.context.close();
});
