// The console's responses carry a strict Content-Security-Policy and the
// usual hardening headers; in the browser, every page (charts included)
// loads from the server's own origin only, nothing is refused by the CSP, and
// a script injected at run time does not run.
import { expect, it } from 'vitest';
import { consoleCall, openConsole, origin, signInAdmin, useConsoleBrowser, visit } from '../helpers/browser.js';
import { call } from '../helpers/client.js';
import { createRoute } from '../helpers/routes.js';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; require-trusted-types-for 'script'; trusted-types 'none'";

const ctx = useConsoleBrowser();

it('serves the app and its files with the CSP and hardening headers', async () => {
  for (const [path, type] of [
    ['/console', 'text/html; charset=utf-8'],
    ['/console/routes/7', 'text/html; charset=utf-8'],
    ['/console/app.js', 'text/javascript; charset=utf-8'],
    ['/console/charts.js', 'text/javascript; charset=utf-8'],
    ['/console/app.css', 'text/css; charset=utf-8'],
  ]) {
    const r = await call(ctx.server.ports[0], ctx.server.ca, 'GET', path);
    expect(r.status, path).toBe(200);
    expect(r.headers).toMatchObject({
      'content-type': type,
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
  }
  const missing = await call(ctx.server.ports[0], ctx.server.ca, 'GET', '/console/nothing.js');
  expect(missing.status).toBe(404);
  expect(missing.headers['content-security-policy']).toBe(CSP);
});

it('answers the console API as JSON, uncached, with the same headers', async () => {
  const r = await call(ctx.server.ports[0], ctx.server.ca, 'GET', '/console/api/session');
  expect(r.status).toBe(401);
  expect(r.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-security-policy': CSP });
  expect(r.json).toEqual({ error: 'the console session is missing or has expired; sign in again', code: 'session_invalid', field: null });
});

it('loads every page from its own origin only, with no CSP violation, charts included', async () => {
  const route = await createRoute(ctx.server, { name: 'Offline charts' });
  await call(ctx.server.ports[0], ctx.server.ca, 'GET', `/r/${route.code}`);
  const { page, context, requests, problems } = await openConsole(ctx.browser, ctx.server);
  // Anything that is not the server would be a network request: refuse it.
  const foreign: string[] = [];
  await context.route((url) => !url.href.startsWith(origin(ctx.server)), (r) => {
    foreign.push(r.request().url());
    return r.abort();
  });
  await signInAdmin(page, ctx.server);
  for (const [path, heading] of [['/routes', 'Routes'], [`/routes/${route.id}`, 'Offline charts'], ['/keys', 'Account and API keys'], ['/ip?ip=8.8.8.8', 'IP check'], ['/database', 'IP database'], ['/admin/blacklist', 'ASN blacklist'], ['/admin/accounts', 'Accounts']]) {
    await visit(page, path, heading);
    await page.waitForTimeout(300);
    // Clicks, groups, rule hits, and the experiment's conversion rates.
    if (path.startsWith('/routes/')) expect(await page.locator('svg.chart').count()).toBe(4);
  }
  expect(foreign).toEqual([]);
  expect(requests.filter((u) => !u.startsWith(origin(ctx.server)))).toEqual([]);
  // (The app's first request, before signing in, is answered 401; Chromium
  // logs that as a failed resource, which is not a problem.)
  expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  await context.close();
});

it('does not run a script injected into the page at run time', async () => {
  const { page, context, problems } = await openConsole(ctx.browser, ctx.server);
  await page.evaluate(() => {
    const s = document.createElement('script');
    // (A text node: setting textContent is a Trusted Types sink, which would throw here.)
    s.append(document.createTextNode('window.__inline = 1'));
    document.body.append(s);
    // An event handler attribute is a Trusted Types sink as well: refused as it is set.
    const d = document.createElement('div');
    try {
      d.setAttribute('onclick', 'window.__inline = 2');
    } catch {
      (window as { __refused?: boolean }).__refused = true;
    }
    document.body.append(d);
    d.click();
  });
  expect(await page.evaluate(() => (window as { __inline?: unknown }).__inline)).toBeUndefined();
  expect(await page.evaluate(() => (window as { __refused?: boolean }).__refused)).toBe(true);
  // Trusted Types refuse it before the CSP's script-src would (trusted-types-enforced.test.ts).
  expect(problems.join('\n')).toMatch(/This document requires 'TrustedScript' assignment\. An HTMLScriptElement was directly modified and will not be executed/);
  // The API answers the page as it answers anyone: nothing is exposed without a session.
  expect((await consoleCall(page, 'GET', '/keys')).status).toBe(401);
  await context.close();
});
