// A body that is not acceptable JSON is 400 invalid_json, before any field is
// looked at: malformed text, an empty body, bytes that are not UTF-8, keys
// that could poison prototypes (also when spelt with \u escapes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const put = (body: string | Buffer) =>
  request({ port: server.ports[0], ca: server.ca, method: 'PUT', path: '/v1/account', key: server.apiKey, body, headers: { 'Content-Type': 'application/json' } });

describe('PUT /v1/account refuses', () => {
  it.each([
    ['truncated JSON', '{"name":'],
    ['a trailing comma', '{"name":"x",}'],
    ['single quotes', "{'name':'x'}"],
    ['two documents', '{"name":"x"}{"name":"y"}'],
    ['an empty body', ''],
  ])('%s as invalid_json with field null', async (_label, body) => {
    const r = await put(body);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.json).toMatchObject({ code: 'invalid_json', field: null });
    expect(typeof r.json.error).toBe('string');
  });

  it('bytes that are not UTF-8 as invalid_json', async () => {
    const r = await put(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_json', field: null });
    expect(r.json.error).toMatch(/UTF-8/);
  });

  it.each([
    ['{"__proto__": {"quota": 99999}}', '__proto__'],
    ['{"name": "x", "__proto__": {"isAdmin": true}}', '__proto__'],
    // Escaped key: JSON.parse decodes it to __proto__.
    ['{"\\u005f_proto__": {"quota": 99999}}', '__proto__'],
    // The reviver sees the innermost forbidden key first.
    ['{"constructor": {"prototype": {"quota": 99999}}}', 'prototype'],
    ['{"constructor": {"name": "x"}}', 'constructor'],
  ])('%s as invalid_json naming %s', async (body, field) => {
    const r = await put(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_json', field });
  });
});

it('changed nothing and polluted nothing', async () => {
  const r = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ name: 'default', quota: 1000 });
  expect(r.json.isAdmin).toBeUndefined();
});
