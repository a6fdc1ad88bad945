// Refusals that used to name nothing, or the wrong thing: a route id with a
// malformed escape is a bad id (it was "no endpoint"), a query parameter
// without a name says so (the field was ''), an empty level is refused (it
// was read as medium), a batch entry that is not an object is named without a
// stray dot, and a blacklist provider's length is counted after trimming, as
// documented.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(() => server?.close());

it.each([
  ['GET', '/v1/routes/%ZZ', undefined, 'id'],
  ['PUT', '/v1/routes/%ZZ', { name: 'x' }, 'id'],
  ['DELETE', '/v1/routes/%ZZ', undefined, 'id'],
  ['PUT', '/v1/admin/blacklist/%E0%A4%A', { enabled: false }, 'asn'],
  ['GET', '/v1/routes?=', undefined, 'query'],
  ['GET', '/v1/ip/check?ip=1.1.1.1&=x', undefined, 'query'],
  ['GET', '/v1/ip/check?ip=1.1.1.1&level=', undefined, 'level'],
  ['POST', '/v1/ip/check', { ips: ['1.1.1.1'], level: '' }, 'level'],
])('%s %s is 400 naming %s', async (method, path, body, field) => {
  const res = await api(server, method, path, body);
  expect(res.status, res.body).toBe(400);
  expect(res.json).toMatchObject({ code: 'invalid_parameter', field });
  expect((res.json as { error: string }).error).toMatch(new RegExp(`^${field} `));
});

it('names a batch entry that is not an object as conversions[i]', async () => {
  const res = await api(server, 'POST', '/v1/conversions', { conversions: [1] });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ results: [{ error: 'conversions[0] must be an object with click_id', code: 'invalid_parameter', field: 'conversions[0]' }] });
});

it('counts a blacklist provider\'s 200 characters after trimming', async () => {
  const provider = `  ${'p'.repeat(200)}  `;
  const res = await api(server, 'POST', '/v1/admin/blacklist', { asn: 64_501, provider, category: 'hosting' });
  expect(res.status, res.body).toBe(201);
  expect(res.json).toMatchObject({ provider: 'p'.repeat(200) });
  const long = await api(server, 'POST', '/v1/admin/blacklist', { asn: 64_502, provider: 'p'.repeat(201), category: 'hosting' });
  expect(long.json).toMatchObject({ code: 'invalid_parameter', field: 'provider' });
});
