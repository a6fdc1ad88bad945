// A page on another host of the same site (evil.example.test beside the
// console's sg.example.test: a blog, a customer's subdomain) sets a session
// cookie of its own for the console, with Domain=example.test and a longer
// path than the console's cookie. The browser sends the longer path first,
// so the console read the setter's session: the victim, signed in with
// their own password, worked in the setter's account (or could not sign in
// at all). The cookie is now `__Host-`: the browser refuses such a cookie
// from any other host, and the console reads no other name.
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

it("keeps the victim's console in the victim's session whatever a sibling host sets", async () => {
  await runCliJson(['user', 'create', '--email', 'setter@x.y', '--password', 'longenough1', '--account', String(server.accountId)], server.dataDir);
  const setter = await signInRequest(server, 'setter@x.y', 'longenough1');
  expect(setter.status).toBe(200);
  const [name, id] = String(setter.headers['set-cookie']?.[0]).split(';')[0]!.split('=');

  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  // The sibling's page: every way it could give the console its session.
  await page.goto(`https://evil.example.test:${server.ports[0]}/console`);
  await page.evaluate(([n, v]) => {
    for (const cookie of [
      `sg_session=${v}; Domain=example.test; Path=/console/api; Secure`,
      `${n}=${v}; Domain=example.test; Path=/; Secure`,
      `${n}=${v}; Domain=example.test; Path=/console/api; Secure`,
      `__Host-sg_session=${v}; Domain=example.test; Path=/; Secure`,
    ]) document.cookie = cookie;
  }, [name!, id!]);

  await page.goto(`https://sg.example.test:${server.ports[0]}/console`);
  const who = () => page.evaluate(async () => {
    const r = await fetch('/console/api/session');
    return { status: r.status, email: ((await r.json()) as { email?: string }).email ?? null };
  });
  // Not signed in as anybody (before: signed in as the setter, with no form to sign in).
  expect(await who()).toEqual({ status: 401, email: null });
  await signInAdmin(page, server);
  expect(await who()).toEqual({ status: 200, email: readBootstrap(server.dataDir).admin_email });
  // What the sibling managed to set reaches the console host under no name it reads.
  const sent = (await context.cookies(`https://sg.example.test:${server.ports[0]}/console/api/session`)).filter((c) => c.value === id);
  expect(sent.map((c) => c.name)).not.toContain('__Host-sg_session');
  await context.close();
});
