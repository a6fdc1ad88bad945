// A key carries no more rights than the person who made it. A console user
// made without --admin, in the bootstrap account (an operator's account),
// creates an API key: that key gets 404 from every /v1/admin endpoint, as if
// they did not exist, while a key made by the admin user works there. Before
// the fix the account's flag decided, and such a key could disable the
// Cloudflare entry of the blacklist. The same holds for a key the plain
// user resets: an admin key reset by them comes back without admin rights
// (the reset copied the old key's rights).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleSession, createConsoleUser } from '../../helpers/console-session.js';
import { api } from '../../helpers/routes.js';
import { readBootstrap, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let userKey = '';
let adminKey = '';
let resetKey = '';

beforeAll(async () => {
  server = await startServer();
  await createConsoleUser(server, 'plain@x.y', 'longenough1');
  const plain = await consoleSession(server, 'plain@x.y', 'longenough1');
  const made = await plain.call('POST', '/keys', { name: 'made by a plain user' });
  expect(made.status).toBe(201);
  userKey = made.json.api_key;
  const boot = readBootstrap(server.dataDir);
  const admin = await consoleSession(server, boot.admin_email, boot.admin_password);
  const adminMade = await admin.call('POST', '/keys', { name: 'made by the admin' });
  adminKey = adminMade.json.api_key;
  const second = await admin.call('POST', '/keys', { name: 'made by the admin, reset by a plain user' });
  const reset = await plain.call('POST', `/keys/${second.json.id}/reset`);
  expect(reset.status).toBe(200);
  resetKey = reset.json.api_key;
});
afterAll(() => server?.close());

it.each([
  ['made', () => userKey],
  ['reset', () => resetKey],
])("refuses a key the plain user %s on every admin endpoint with 404", async (_how, key) => {
  const userKey = key();
  const calls: [string, string, unknown?][] = [
    ['GET', '/v1/admin/blacklist?limit=100'],
    ['POST', '/v1/admin/blacklist', { asn: 64500, provider: 'x', category: 'hosting' }],
    ['PUT', '/v1/admin/blacklist/13335', { enabled: false }],
    ['DELETE', '/v1/admin/blacklist/64500'],
    // Other spellings of the path, and methods the endpoint lacks: 404 too, never 405 or 400.
    ['PUT', '/v1//admin/blacklist/13335', { enabled: false }],
    ['PATCH', '/v1/admin/blacklist'],
  ];
  for (const [method, path, json] of calls) {
    const res = await api(server, method, path, json, { key: userKey });
    expect({ method, path, status: res.status, code: res.json?.code }).toEqual({ method, path, status: 404, code: 'not_found' });
  }
  // The key itself works for the account's ordinary endpoints.
  expect((await api(server, 'GET', '/v1/account', undefined, { key: userKey })).status).toBe(200);
});

it("accepts the admin user's key, and Cloudflare stays enabled", async () => {
  const list = await api(server, 'GET', '/v1/admin/blacklist?q=13335', undefined, { key: adminKey });
  expect(list.status).toBe(200);
  expect(list.json.data.find((e: { asn: number }) => e.asn === 13335)).toMatchObject({ enabled: true });
});
