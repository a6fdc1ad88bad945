// GET and PUT /v1/account against docs/openapi.yaml: the real server's
// replies (status, declared headers, body) validate against the document,
// and errors carry the documented code and field.
//
// One server for the file (the compiled one, test/helpers/server.ts, with
// the contract's rate limit of 60 a minute). GET reads the bootstrap
// account, which no test changes: the one test whose PUT renames an account
// renames its own, created in the test; the others' requests must be
// refused, and are a fraction of the bootstrap account's 60 a minute.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callOn, type CallOptions, errorBody, expectMatches, expectOperation } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const call = (method: string, urlPath: string, options: CallOptions = {}) => callOn(server, method, urlPath, options);

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

it('GET /v1/account: 200', async () => {
  const reply = await call('GET', '/v1/account');
  expect(reply.status).toBe(200);
  expectOperation(reply, '/v1/account', 'GET');
  expect(JSON.parse(reply.body)).toMatchObject({ id: 1, name: 'default' });
});

it('GET /v1/account: 401 without a key, with an unknown key, with another scheme', async () => {
  // Failed authentications count per client address: this test's own.
  const localAddress = '127.0.0.21';
  for (const options of [{ key: null }, { key: 'sg_not-a-real-key' }, { key: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } }]) {
    const reply = await call('GET', '/v1/account', { ...options, localAddress });
    expect(reply.status).toBe(401);
    expectOperation(reply, '/v1/account', 'GET');
    expect(errorBody(reply)).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
  }
});

it('PUT /v1/account: 200 with the trimmed new name', async () => {
  // Its own account, never the bootstrap one that GET /v1/account reads: the
  // id shows which account the key renamed.
  const { account_id: id, api_key: key } = await newAccount(server, 'to rename');
  const reply = await call('PUT', '/v1/account', { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: '  Marketing team  ' }) });
  expect(reply.status).toBe(200);
  expectOperation(reply, '/v1/account', 'PUT');
  expect(JSON.parse(reply.body)).toMatchObject({ id, name: 'Marketing team' });
});

it('PUT /v1/account: 400 invalid_parameter naming the field', async () => {
  const cases: [unknown, string][] = [
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 5 }, 'name'],
    [{}, 'name'],
    [{ name: 'ok', quota: 5 }, 'quota'],
    [{ name: 'ok', colour: 'red' }, 'colour'],
    [['name'], 'body'],
  ];
  for (const [body, field] of cases) {
    const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(reply.status, JSON.stringify(body)).toBe(400);
    expectOperation(reply, '/v1/account', 'PUT');
    expect(errorBody(reply)).toMatchObject({ code: 'invalid_parameter', field });
  }
});

it('PUT /v1/account: 400 invalid_json', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ 'Content-Type': 'application/json' }, '{"name":'],
    [{ 'Content-Type': 'application/json' }, ''],
    [{ 'Content-Type': 'application/json' }, '{"name":"x","__proto__":{"admin":true}}'],
    [{}, '{"name"'],
  ];
  for (const [headers, body] of cases) {
    const reply = await call('PUT', '/v1/account', { headers, body });
    expect(reply.status, body).toBe(400);
    expectOperation(reply, '/v1/account', 'PUT');
    expect(errorBody(reply).code).toBe('invalid_json');
  }
});

it('PUT /v1/account: 400 invalid_parameter naming Content-Type when it is not JSON', async () => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': type }, body: '{"name":"x"}' });
    expect(reply.status, type).toBe(400);
    expectOperation(reply, '/v1/account', 'PUT');
    expect(errorBody(reply)).toMatchObject({ code: 'invalid_parameter', field: 'Content-Type' });
  }
});

it('PUT /v1/account: 413 over 64 KiB', async () => {
  const body = JSON.stringify({ name: 'x'.repeat(64 * 1024) });
  const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': 'application/json' }, body });
  expect(reply.status).toBe(413);
  expectOperation(reply, '/v1/account', 'PUT');
  expect(errorBody(reply)).toMatchObject({ code: 'payload_too_large', field: null });
});

it('DELETE /v1/account: 405 as components/responses/MethodNotAllowed, with Allow', async () => {
  const reply = await call('DELETE', '/v1/account');
  expect(reply.status).toBe(405);
  expectMatches(reply, '/components/responses/MethodNotAllowed');
  expect(reply.headers.allow).toBe('GET, PUT');
});
