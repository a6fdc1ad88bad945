// CSRF protection: every console request that changes something must carry
// the session's X-CSRF-Token (403 csrf_failed without it or with a wrong
// one), and a browser request from another origin is refused even with it.
import { beforeAll, expect, it } from 'vitest';
import { consoleCall, csrfToken, useSignedInConsole } from '../helpers/browser.js';
import { api } from '../helpers/routes.js';

const c = useSignedInConsole();
let token = '';
beforeAll(async () => {
  token = await csrfToken(c.page);
});

const refused = {
  error: "the request failed the CSRF check: X-CSRF-Token is missing or is not this session's token",
  code: 'csrf_failed',
  field: 'X-CSRF-Token',
};
const keyNames = async () => (await consoleCall(c.page, 'GET', '/keys')).json.data.map((k: { name: string }) => k.name);

it('refuses a change without the token, or with a wrong one, and changes nothing', async () => {
  const none = await consoleCall(c.page, 'POST', '/keys', { json: { name: 'sneaky' } });
  expect(none.status).toBe(403);
  expect(none.json).toEqual(refused);
  const wrong = await consoleCall(c.page, 'POST', '/keys', { json: { name: 'sneaky' }, csrf: `${token.slice(0, -1)}x` });
  expect(wrong.status).toBe(403);
  expect(wrong.json).toEqual(refused);
  const empty = await consoleCall(c.page, 'POST', '/keys', { json: { name: 'sneaky' }, csrf: '' });
  expect(empty.status).toBe(403);
  expect(await keyNames()).not.toContain('sneaky');
});

it('guards every kind of change: /v1 pass-through, deletes, admin changes and logout', async () => {
  const route = await consoleCall(c.page, 'POST', '/v1/routes', { json: { name: 'x', page_a: 'https://a.example/', page_b: 'https://b.example/' } });
  expect(route.status).toBe(403);
  expect((await api(c.server, 'GET', '/v1/routes')).json.pagination.total).toBe(0);
  expect((await consoleCall(c.page, 'PUT', '/v1/admin/blacklist/15169', { json: { enabled: false } })).status).toBe(403);
  expect((await api(c.server, 'GET', '/v1/ip/check?ip=8.8.8.8')).json.signals.asn_blacklist).toBe(true);
  expect((await consoleCall(c.page, 'PUT', '/accounts/1', { json: { quota: 1 } })).status).toBe(403);
  expect((await consoleCall(c.page, 'POST', '/v1/ip/update')).status).toBe(403);
  expect((await consoleCall(c.page, 'DELETE', '/keys/key_0000000000000000')).status).toBe(403);
  expect((await consoleCall(c.page, 'POST', '/session/logout')).status).toBe(403);
  // Still signed in: the refused logout did not end the session.
  expect((await consoleCall(c.page, 'GET', '/session')).status).toBe(200);
});

it('accepts the same change with the token', async () => {
  const ok = await consoleCall(c.page, 'POST', '/keys', { json: { name: 'legit' }, csrf: token });
  expect(ok.status).toBe(201);
  expect(await keyNames()).toContain('legit');
});

it('refuses a request whose Origin is another site, even with the token', async () => {
  const r = await consoleCall(c.page, 'POST', '/keys', { json: { name: 'cross' }, csrf: token, headers: { Origin: 'https://evil.example' } });
  expect(r.status).toBe(403);
  expect(r.json).toEqual({ error: 'the request failed the CSRF check: the Origin header names another site', code: 'csrf_failed', field: 'Origin' });
  const login = await consoleCall(c.page, 'POST', '/session/login', { json: { email: 'a@b.c', password: 'x' }, headers: { Origin: 'https://evil.example' } });
  expect(login.status).toBe(403);
  expect(await keyNames()).not.toContain('cross');
});

it('a page on another origin cannot make the browser change anything', async () => {
  // A form posted from a foreign page carries no token (and, SameSite=Strict,
  // no session cookie); a fetch cannot read the token from the console.
  const evil = await c.page.context().newPage();
  await evil.route('https://evil.example/**', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<form method="post" action="${new URL(c.page.url()).origin}/console/api/keys" enctype="text/plain"><input name='{"name":"forged","x":"' value='"}'></form><script>document.forms[0].submit()</script>`,
    }),
  );
  const answered = evil.waitForResponse((r) => r.url().endsWith('/console/api/keys'));
  await evil.goto('https://evil.example/attack');
  const r = await answered;
  expect([401, 403]).toContain(r.status());
  await evil.close();
  expect(await keyNames()).not.toContain('forged');
});
