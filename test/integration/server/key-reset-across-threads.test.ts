// `splitguard key reset --account ID`, run while the server runs, takes
// effect at once on every thread: a key used on thread 0 and then reset by
// the CLI is refused on thread 1 (and thread 0) on the very next request,
// and the printed new key is accepted on both.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { call } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

it('the old key stops and the new key works on another thread immediately', async () => {
  const [p0, p1] = server.ports;
  const before0 = await call(p0, server.ca, 'GET', '/v1/account', server.apiKey);
  const before1 = await call(p1, server.ca, 'GET', '/v1/account', server.apiKey);
  expect(before0.status).toBe(200);
  expect(before1.status).toBe(200);

  const reset = await runCliJson<{ api_key: string }>(['key', 'reset', '--account', String(server.accountId)], server.dataDir);
  expect(reset.api_key).toMatch(/^sg_/);
  expect(reset.api_key).not.toBe(server.apiKey);

  const old1 = await call(p1, server.ca, 'GET', '/v1/account', server.apiKey);
  expect(old1.status).toBe(401);
  expect(old1.headers['www-authenticate']).toBe('Bearer');
  expect(old1.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });

  const new1 = await call(p1, server.ca, 'GET', '/v1/account', reset.api_key);
  expect(new1.status).toBe(200);
  expect(new1.json.id).toBe(server.accountId);

  const old0 = await call(p0, server.ca, 'GET', '/v1/account', server.apiKey);
  expect(old0.status).toBe(401);
  expect(old0.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
  const new0 = await call(p0, server.ca, 'GET', '/v1/account', reset.api_key);
  expect(new0.status).toBe(200);
});
