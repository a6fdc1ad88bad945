// PUT /v1/account validates its body at the edge, naming the field: an
// unknown field and a read-only field (quota, id, ...) are 400
// invalid_parameter with that field; a bad name is 400 naming "name"; a
// Content-Type other than JSON is 400 naming Content-Type. A valid rename is
// 200 with the account, and GET shows the new name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, limits, request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const put = (json: unknown) => request({ port: server.ports[0], ca: server.ca, method: 'PUT', path: '/v1/account', key: server.apiKey, json });

describe('PUT /v1/account refuses with invalid_parameter', () => {
  it.each([
    [{ name: 'x', colour: 'red' }, 'colour'],
    [{ nmae: 'x' }, 'nmae'],
    [{ quota: 5 }, 'quota'],
    [{ name: 'x', quota: 1_000_000 }, 'quota'],
    [{ id: 7 }, 'id'],
    [{ routes_created: 0 }, 'routes_created'],
    [{ created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
    [{ name: 42 }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{}, 'name'],
    [['name'], 'body'],
    ['just a string', 'body'],
  ])('%j naming %s', async (json, field) => {
    const r = await put(json);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.json).toMatchObject({ code: 'invalid_parameter', field });
    expect(r.json.error).toContain(field);
    expect(limits(r).limit).toBe(60);
  });
});

it('refuses a Content-Type other than JSON as invalid_parameter naming Content-Type', async () => {
  const r = await request({
    port: server.ports[0],
    ca: server.ca,
    method: 'PUT',
    path: '/v1/account',
    key: server.apiKey,
    body: '{"name":"x"}',
    headers: { 'Content-Type': 'text/plain' },
  });
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ code: 'invalid_parameter', field: 'Content-Type' });
});

it('accepts a JSON Content-Type with parameters', async () => {
  const r = await request({
    port: server.ports[0],
    ca: server.ca,
    method: 'PUT',
    path: '/v1/account',
    key: server.apiKey,
    body: '{"name":"default"}',
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
  expect(r.status).toBe(200);
});

it('renames the account (trimmed) and GET shows the new name, quota untouched', async () => {
  const r = await put({ name: '  Spring team  ' });
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ id: server.accountId, name: 'Spring team', quota: 1000 });

  const get = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  expect(get.status).toBe(200);
  expect(get.json).toMatchObject({ id: server.accountId, name: 'Spring team', quota: 1000, routes_created: 0 });
});
