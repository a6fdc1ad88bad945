// Authentication is checked first on /v1: a missing header, a header that is
// not "Bearer <key>", or a key the server does not know gets 401
// unauthorized (field Authorization) with WWW-Authenticate: Bearer; a valid
// key gets through, with the RateLimit headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits, request, type Response } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const get = (headers: Record<string, string>) => request({ port: server.ports[0], ca: server.ca, path: '/v1/account', headers });

function expectUnauthorized(r: Response): void {
  expect(r.status).toBe(401);
  expect(r.headers['www-authenticate']).toBe('Bearer');
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
  expect(typeof r.json.error).toBe('string');
}

describe('authentication on /v1', () => {
  it('refuses a request without an Authorization header', async () => {
    const r = await get({});
    expectUnauthorized(r);
    expect(r.json.error).toMatch(/missing/);
  });

  it('refuses a Basic header', async () => {
    const r = await get({ Authorization: 'Basic x' });
    expectUnauthorized(r);
    expect(r.json.error).toMatch(/Bearer/);
  });

  it('refuses "Bearer" with no token', async () => {
    const r = await get({ Authorization: 'Bearer' });
    expectUnauthorized(r);
    expect(r.json.error).toMatch(/Bearer/);
  });

  it('refuses a well-formed key the server does not know', async () => {
    const r = await get({ Authorization: `Bearer sg_${'A'.repeat(43)}` });
    expectUnauthorized(r);
    expect(r.json.error).toMatch(/not valid/);
  });

  it('refuses the valid key with one character changed', async () => {
    const k = server.apiKey;
    const r = await get({ Authorization: `Bearer ${k.slice(0, -1)}${k.endsWith('A') ? 'B' : 'A'}` });
    expectUnauthorized(r);
  });

  it('accepts the bootstrap key and answers with the account and the RateLimit headers', async () => {
    const r = await get({ Authorization: `Bearer ${server.apiKey}` });
    expect(r.status).toBe(200);
    expect(r.headers['www-authenticate']).toBeUndefined();
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.json).toMatchObject({ id: server.accountId, name: 'default' });
    const l = limits(r);
    expect(l.limit).toBe(60);
    expect(l.remaining).toBe(59);
    expect(l.reset).toBeGreaterThanOrEqual(1);
    expect(l.reset).toBeLessThanOrEqual(60);
    expect(Number.isNaN(l.retryAfter)).toBe(true);
  });
});
