// "You have signed out." only once the browser's session has ended. A tab
// opened before the user signed out and in again in another tab holds the
// old session's CSRF token; its Sign out was refused (403 csrf_failed) and
// the page said "You have signed out." anyway, the new session left live in
// the cookie for whoever uses the browser next. A sign-out that cannot reach
// the server said the same.
import { expect, it } from 'vitest';
import { consoleCall, csrfToken, openConsole, origin, signInAdmin, useConsoleBrowser } from '../helpers/browser.js';

const ctx = useConsoleBrowser();

it('ends the cookie\'s session from a tab that signed in before a sign-in in another tab', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(page, ctx.server);
  // Another tab signs out and in again: the cookie names a new session.
  const other = await context.newPage();
  await other.goto(`${origin(ctx.server)}/console`);
  await other.getByRole('navigation', { name: 'Main' }).waitFor();
  expect((await consoleCall(other, 'POST', '/session/logout', { csrf: await csrfToken(other) })).status).toBe(204);
  await other.reload();
  await signInAdmin(other, ctx.server);
  await other.close();
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(200);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(401);
  expect(await context.cookies()).toEqual([]);
  await context.close();
});

it('says so, and stays signed in, when the sign-out does not reach the server', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(page, ctx.server);
  await context.setOffline(true);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('alert').filter({ hasText: 'Signing out failed' }).waitFor();
  expect(await page.getByText('You have signed out.').count()).toBe(0);
  expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);

  // Back online, the session still lives, and Sign out ends it.
  await context.setOffline(false);
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  expect((await consoleCall(page, 'GET', '/session')).status).toBe(401);
  await context.close();
});
