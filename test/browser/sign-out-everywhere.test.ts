// Sign out everywhere, from the account page: the user signed in on two
// devices (two browser contexts) ends both sessions from one, after saying
// yes to the question (Cancel ends nothing); the page says
// how many sessions ended and shows the sign-in, and the other device meets
// the sign-in at its next request.
import { expect, it } from 'vitest';
import { consoleCall, openConsole, signInAdmin, useConsoleBrowser, visit } from '../helpers/browser.js';

const ctx = useConsoleBrowser();

it('ends the sessions of every device, this one included', async () => {
  const laptop = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(laptop.page, ctx.server);
  const phone = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(phone.page, ctx.server);
  expect((await consoleCall(phone.page, 'GET', '/session')).status).toBe(200);

  await visit(laptop.page, '#/keys', 'Account and API keys');
  // Asked first; Cancel keeps every session.
  await laptop.page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await laptop.page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  expect((await consoleCall(phone.page, 'GET', '/session')).status).toBe(200);
  await laptop.page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await laptop.page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await laptop.page.getByText('You have signed out everywhere (2 sessions ended).').waitFor();
  expect((await consoleCall(laptop.page, 'GET', '/session')).status).toBe(401);
  expect(await laptop.context.cookies()).toEqual([]);

  expect((await consoleCall(phone.page, 'GET', '/session')).status).toBe(401);
  await visit(phone.page, '#/keys', 'Sign in to splitguard');
  await phone.page.getByText('Your session has ended. Please sign in again.').waitFor();
  await laptop.context.close();
  await phone.context.close();
});
