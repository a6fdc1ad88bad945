// Signing in and out of the console in Chromium: the session cookie's flags,
// the message for a wrong password, logout ending the session on the
// server, and the limit on failed logins per email.
import { expect, it } from 'vitest';
import { consoleCall, openConsole, screenshot, signIn, signInAdmin, useConsoleBrowser } from '../helpers/browser.js';
import { runCliJson } from '../helpers/cli.js';
import { readBootstrap } from '../helpers/server.js';

const ctx = useConsoleBrowser();

it('shows the login form and refuses a wrong password with a message', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await page.getByRole('heading', { name: 'Sign in to splitguard' }).waitFor();
  await page.getByLabel('Email').waitFor();
  await screenshot(page, 'login');

  await page.getByLabel('Email').fill(readBootstrap(ctx.server.dataDir).admin_email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe('the email or password is not correct');
  expect(await context.cookies()).toEqual([]);
  await context.close();
});

it('sets HttpOnly, Secure, SameSite=Strict session cookies for this host only (__Host-)', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(page, ctx.server);
  const cookies = (await context.cookies()).sort((x, y) => x.name.localeCompare(y.name));
  // The session id in two halves (console/sessions.ts says why).
  expect(cookies.map((c) => c.name)).toEqual(['__Host-sg_session', '__Host-sg_session_b']);
  expect(cookies.map((c) => c.value.length)).toEqual([22, 21]);
  for (const c of cookies) {
    expect(c).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, secure: true, sameSite: 'Strict' });
    expect(c.value).toMatch(/^[A-Za-z0-9_-]+$/);
    // Expires with the absolute lifetime (12 h), not a persistent "remember me".
    expect(c.expires * 1000 - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect(c.expires * 1000 - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);
  }
  // Scripts cannot read it.
  expect(await page.evaluate(() => document.cookie)).toBe('');
  await context.close();
});

it('signs out: the cookie is cleared and the old session id is refused', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(page, ctx.server);
  const [old] = await context.cookies();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  expect(await context.cookies()).toEqual([]);

  // Replaying the old cookie does not bring the session back.
  await context.addCookies([old]);
  const me = await consoleCall(page, 'GET', '/session');
  expect(me.status).toBe(401);
  expect(me.json).toMatchObject({ code: 'session_invalid', field: null });
  await context.close();
});

it('limits failed logins per email: after 5 failures even the right password waits', async () => {
  await runCliJson(['user', 'create', '--email', 'limited@example.com', '--password', 'right-password-1', '--account', String(ctx.server.accountId)], ctx.server.dataDir);
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  for (let i = 0; i < 5; i++) {
    const r = await consoleCall(page, 'POST', '/session/login', { json: { email: 'limited@example.com', password: `wrong-${i}` } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('login_failed');
  }
  await page.getByLabel('Email').fill('limited@example.com');
  await page.getByLabel('Password').fill('right-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/too many failed sign-ins/);
  const r = await consoleCall(page, 'POST', '/session/login', { json: { email: 'limited@example.com', password: 'right-password-1' } });
  expect(r.status).toBe(429);
  expect(r.json.code).toBe('rate_limited');
  expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);

  // Another login from the same address is not locked out by this email's failures.
  await context.clearCookies();
  await page.reload();
  await signInAdmin(page, ctx.server);
  await context.close();
});

it('an unknown email gets the same answer as a wrong password', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  const r = await consoleCall(page, 'POST', '/session/login', { json: { email: 'nobody@example.com', password: 'whatever-1' } });
  expect(r.status).toBe(401);
  expect(r.json).toEqual({ error: 'the email or password is not correct', code: 'login_failed', field: null });
  await signIn(page, readBootstrap(ctx.server.dataDir).admin_email, readBootstrap(ctx.server.dataDir).admin_password);
  await context.close();
});
