// Behind a trusted proxy the framing guard walks every request's header
// lines, and a PUT's If-Match is read from that same walk (http/request.ts
// headerLines): a stale tag on a second line is still seen, and a request
// without If-Match after one with it is not taken for conditional.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { createRoute, NO_RATE_LIMIT, TRUST_LOOPBACK } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
});
afterAll(async () => {
  await server?.close();
});

const put = (id: number, name: string, ifMatch?: string | string[]) =>
  request({ port: server.ports[0], ca: server.ca, method: 'PUT', path: `/v1/routes/${id}`, key: server.apiKey, json: { name }, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch as string } });

it('reads If-Match from the walk the framing guard made', async () => {
  const route = await createRoute(server, { name: 'proxied' });
  const tag = `"${route.updated_at}"`;
  const moved = await put(route.id, 'moved');
  expect(moved.status).toBe(200);
  expect((await put(route.id, 'stale', ['*', tag])).status).toBe(400);
  expect((await put(route.id, 'stale', tag)).status).toBe(412);
  expect((await put(route.id, 'unconditional')).status).toBe(200);
  expect((await put(route.id, 'current', moved.headers.etag as string)).status).toBe(412);
});
