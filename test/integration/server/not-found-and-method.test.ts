// Unknown paths and wrong methods: an unknown /v1 path is 404 not_found
// once authenticated (and 401 before that: authentication comes first); a
// path outside /v1 is 404 without a key; DELETE /v1/account is 405
// method_not_allowed with Allow: GET, PUT.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, limits } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

it('answers 404 not_found for an unknown /v1 path with a valid key, with the RateLimit headers', async () => {
  const r = await call(server.ports[0], server.ca, 'GET', '/v1/nothing-here', server.apiKey);
  expect(r.status).toBe(404);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json).toMatchObject({ code: 'not_found', field: null });
  expect(limits(r).limit).toBe(60);
  expect(limits(r).remaining).toBeLessThan(60);
});

it('answers 401 for an unknown /v1 path without a key: authentication is checked first', async () => {
  const r = await call(server.ports[0], server.ca, 'GET', '/v1/nothing-here');
  expect(r.status).toBe(401);
  expect(r.headers['www-authenticate']).toBe('Bearer');
  expect(r.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
});

it('answers 404 not_found for a path outside /v1, without a key', async () => {
  const r = await call(server.ports[0], server.ca, 'GET', '/nothing-here');
  expect(r.status).toBe(404);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json).toMatchObject({ code: 'not_found', field: null });
});

it('answers 405 method_not_allowed with Allow: GET, PUT for DELETE /v1/account', async () => {
  const r = await call(server.ports[0], server.ca, 'DELETE', '/v1/account', server.apiKey);
  expect(r.status).toBe(405);
  expect(r.headers.allow).toBe('GET, PUT');
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json).toMatchObject({ code: 'method_not_allowed', field: null });
  expect(limits(r).limit).toBe(60);
});

it('still serves the account after all that', async () => {
  const r = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  expect(r.status).toBe(200);
  expect(r.json.id).toBe(server.accountId);
});
