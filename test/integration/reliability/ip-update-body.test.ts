// POST /v1/ip/update has no options: it takes no body, or an empty JSON
// object. A field in the body ("force", "source") is 400 naming it instead of
// being silently ignored (contract §3: unknown body fields are 400 naming the
// field), and a refused request does not use up the hourly trigger.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request, type Response } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const update = (key: string, body?: string, contentType?: string): Promise<Response> =>
  request({
    port: server.ports[0],
    ca: server.ca,
    method: 'POST',
    path: '/v1/ip/update',
    key,
    body,
    headers: contentType ? { 'Content-Type': contentType } : {},
  });

it.each<[string, string, string | undefined, string, string | null]>([
  ['an unknown field', '{"force": true}', 'application/json', 'invalid_parameter', 'force'],
  ['a field of the status answer', '{"status": "started"}', undefined, 'invalid_parameter', 'status'],
  ['an array', '[]', 'application/json', 'invalid_parameter', 'body'],
  ['a string', '"now"', 'application/json', 'invalid_parameter', 'body'],
  ['malformed JSON', '{"force":', 'application/json', 'invalid_json', null],
  ['a prototype key', '{"__proto__": {"admin": true}}', 'application/json', 'invalid_json', '__proto__'],
  ['a body that is not JSON', 'force=1', 'application/x-www-form-urlencoded', 'invalid_parameter', 'Content-Type'],
])('%s is 400 %s', async (_label, body, type, code, field) => {
  const r = await update(server.apiKey, body, type);
  expect(r.status, r.body).toBe(400);
  expect(r.json).toMatchObject({ code, field });
});

it('the refused requests did not use the hourly trigger: no body starts a refresh, then {} is too soon', async () => {
  const first = await update(server.apiKey);
  expect(first.status, first.body).toBe(202);
  expect(first.json.status).toMatch(/^(started|running)$/);
  const again = await update(server.apiKey, '{}', 'application/json');
  expect(again.status, again.body).toBe(429);
  expect(again.json.code).toBe('refresh_too_soon');
});

it('an empty body with a form Content-Type (curl -d \'\') is no body', async () => {
  const other = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'other'], server.dataDir);
  const r = await update(other.api_key, '', 'application/x-www-form-urlencoded');
  expect(r.status, r.body).toBe(202);
});
