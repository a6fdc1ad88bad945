// POST /v1/admin/blacklist: an optional field sent as null is a wrong type
// (400 naming it), as everywhere else in the API; only an absent field takes
// its default. It used to be read as absent (level "low", note "").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const post = (json: unknown) => request({ port: server.ports[0], ca: server.ca, method: 'POST', path: '/v1/admin/blacklist', key: server.apiKey, json });

it.each(['level', 'note'])('%s: null is 400 naming it, and nothing is added', async (field) => {
  const r = await post({ asn: 64999, provider: 'Null Hosting', category: 'hosting', [field]: null });
  expect(r.status, r.body).toBe(400);
  expect(r.json).toMatchObject({ code: 'invalid_parameter', field });
  const list = await request({ port: server.ports[0], ca: server.ca, path: '/v1/admin/blacklist?q=64999', key: server.apiKey });
  expect(list.json.data).toEqual([]);
});

it('absent optional fields still take their defaults', async () => {
  const r = await post({ asn: 64998, provider: 'Absent Hosting', category: 'hosting' });
  expect(r.status, r.body).toBe(201);
  expect(r.json).toMatchObject({ asn: 64998, level: 'low', note: null });
});
