// A page on another host of the same site (evil.example.test beside the
// console's sg.example.test: a blog, a customer's subdomain) sets a session
// cookie of its own for the console, with Domain=example.test and a longer
// path than the console's cookie. The browser sends the longer path first,
// so the console read the setter's session: the victim, signed in with
// their own password, worked in the setter's account (or could not sign in
// at all). The cookies are now `__Host-`, which the browser takes from this
// host only, and the id is split between two of them: uWS drops the bytes
// above 0x7f that begin a header, so a cookie named `é__Host-sg_session`
// (no prefix to the browser, sent first) reached the server as
// `__Host-sg_session` (a review of the first fix), but only one cookie can
// begin the header. Each way is tried in a browser context of its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { runCliJson } from '../helpers/cli.js';
import { launchChromium, signInAdmin } from '../helpers/browser.js';
import { signInRequest } from '../helpers/console-session.js';
import { readBootstrap, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium({ loopbackHosts: 'example.test' })]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The setter's cookies as its own sign-in set them: name and value of each. */
type Jar = [string, string][];

/** Cookies set by a page of evil.example.test, each a document.cookie line, with the setter's names (n0, n1) and values (v0, v1) filled in. */
const WAYS: Record<string, string[]> = {
  'the name before, whole id': ['sg_session={v0}{v1}; Domain=example.test; Path=/console/api; Secure'],
  'the names, with Domain': ['{n0}={v0}; Domain=example.test; Path=/; Secure', '{n1}={v1}; Domain=example.test; Path=/; Secure'],
  'the names, narrower path': ['{n0}={v0}; Path=/console/api; Secure', '{n1}={v1}; Path=/console/api; Secure'],
  'é before the names': ['é{n0}={v0}; Domain=example.test; Path=/console/api; Secure', 'é{n1}={v1}; Domain=example.test; Path=/console/api; Secure'],
  'é before the names, second half first': ['é{n1}={v1}; Domain=example.test; Path=/console/api; Secure', 'é{n0}={v0}; Domain=example.test; Path=/console/api; Secure'],
  'U+00A0 before the names': ['\u00a0{n0}={v0}; Domain=example.test; Path=/console/api; Secure', '\u00a0{n1}={v1}; Domain=example.test; Path=/console/api; Secure'],
  'U+FEFF before the names': ['\ufeff{n0}={v0}; Domain=example.test; Path=/console/api; Secure', '\ufeff{n1}={v1}; Domain=example.test; Path=/console/api; Secure'],
};

it.each(Object.keys(WAYS))("keeps the victim's console in the victim's session: %s", async (way) => {
  const email = `setter-${Object.keys(WAYS).indexOf(way)}@x.y`;
  await runCliJson(['user', 'create', '--email', email, '--password', 'longenough1', '--account', String(server.accountId)], server.dataDir);
  const setter = await signInRequest(server, email, 'longenough1');
  expect(setter.status).toBe(200);
  const jar: Jar = (setter.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!.split('=') as [string, string]);
  expect(jar.map(([n]) => n)).toEqual(['__Host-sg_session', '__Host-sg_session_b']);
  const lines = WAYS[way]!.map((line) => line.replace(/\{([nv])([01])\}/g, (_, kind: string, i: string) => jar[Number(i)]![kind === 'n' ? 0 : 1]));

  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`https://evil.example.test:${server.ports[0]}/console`);
  await page.evaluate((all) => {
    for (const line of all) document.cookie = line;
  }, lines);

  await page.goto(`https://sg.example.test:${server.ports[0]}/console`);
  const who = () => page.evaluate(async () => {
    const r = await fetch('/console/api/session');
    return { status: r.status, email: ((await r.json()) as { email?: string }).email ?? null };
  });
  // Not signed in as anybody (before: signed in as the setter, with no form to sign in).
  expect(await who()).toEqual({ status: 401, email: null });
  await signInAdmin(page, server);
  expect(await who()).toEqual({ status: 200, email: readBootstrap(server.dataDir).admin_email });
  await context.close();
});
