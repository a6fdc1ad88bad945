// Names (of routes, accounts and API keys) refuse control characters and
// bidirectional overrides, naming the field and the character. A tenant's
// account name ending in U+202E was stored as it came, and the admin's
// console then showed that line, and every text after the name on it,
// backwards (the console and API review of 2026-11-27). Right-to-left names
// and their marks (U+200F) are names like any other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleSession } from '../../helpers/console-session.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { readBootstrap, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(() => server?.close());

const pages = { page_a: 'https://a.example/', page_b: 'https://b.example/' };

it.each([
  ['a right-to-left override', 'Tenant\u202e', 'U+202E'],
  ['an isolate', '\u2067Tenant', 'U+2067'],
  ['a NUL', 'Ten\u0000ant', 'U+0000'],
  ['an escape', 'Ten\u001b[31mant', 'U+001B'],
  ['a line break', 'Ten\nant', 'U+000A'],
  ['a C1 control', 'Ten\u0085ant', 'U+0085'],
])('refuses %s in a route, account or key name', async (_what, name, code) => {
  const expected = { code: 'invalid_parameter', field: 'name' };
  const created = await api(server, 'POST', '/v1/routes', { name, ...pages });
  expect(created.status).toBe(400);
  expect(created.json).toMatchObject(expected);
  expect(created.json.error).toContain(code);
  const account = await api(server, 'PUT', '/v1/account', { name });
  expect(account.status).toBe(400);
  expect(account.json).toMatchObject(expected);
  const boot = readBootstrap(server.dataDir);
  const session = await consoleSession(server, boot.admin_email, boot.admin_password);
  const key = await session.call('POST', '/keys', { name });
  expect(key.status).toBe(400);
  expect(key.json).toMatchObject(expected);
});

it('takes a right-to-left name with its marks', async () => {
  const name = '\u200fמבצע אביב\u200f';
  const created = await api(server, 'POST', '/v1/routes', { name, ...pages });
  expect(created.status).toBe(201);
  expect(created.json.name).toBe(name);
});
