// POST /v1/ip/update and GET /v1/ip/database against docs/openapi.yaml: a
// trigger with a field is refused; a trigger starts a refresh that the
// status shows running, another account's trigger joins it, the same
// account's second one is too soon, and the record of the finished refresh
// holds a failed source and the one that was installed.
//
// One server for the file, whose refresh sources are a loopback node:http
// server (test/helpers/sources.ts): a first that answers 500, then one
// serving the installed package's CSV files. Only the refresh test starts a
// refresh; the other test's triggers are refused for their body, which is
// read before the account's once-an-hour limit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callOn, type CallOptions, expectReply } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let srv: TestServer;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  sources = await startSourceServer();
  srv = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: `${sources.location('status500')},${sources.location('valid')}` } });
});

afterAll(async () => {
  await srv?.close();
  await sources?.close();
});

it('POST /v1/ip/update: 400 for a field or a body that is not an object', async () => {
  expectReply(await on('POST', '/v1/ip/update', { json: { force: true } }), '/v1/ip/update', 'POST', 400, { code: 'invalid_parameter', field: 'force' });
  expectReply(await on('POST', '/v1/ip/update', { json: [] }), '/v1/ip/update', 'POST', 400, { code: 'invalid_parameter', field: 'body' });
});

it('POST /v1/ip/update: 202 started, 202 running for another account, 429 refresh_too_soon; GET /v1/ip/database: 200 running, then the record of both sources', async () => {
  const other = await newAccount(srv, 'joins the refresh');
  const started = await on('POST', '/v1/ip/update');
  expectReply(started, '/v1/ip/update', 'POST', 202);
  expect(started.json.status).toBe('started');
  expect(Date.parse(started.json.next_allowed_at) - Date.parse(started.json.started_at)).toBe(3_600_000);

  // The trigger claims the running slot in shared memory at once, so the
  // status shows the refresh running before the build finishes.
  const { value: status } = await waitUntil(() => on('GET', '/v1/ip/database'), (r) => r.json.refresh_running === true, 5000);
  expectReply(status, '/v1/ip/database', 'GET', 200);
  expect(status.json).toMatchObject({ available: true, last_refresh: null });

  const joined = await on('POST', '/v1/ip/update', { key: other.api_key, json: {} });
  expectReply(joined, '/v1/ip/update', 'POST', 202);
  expect(joined.json.status).toBe('running');
  expect(Math.abs(Date.parse(joined.json.started_at) - Date.parse(started.json.started_at))).toBeLessThan(1000);

  const again = await on('POST', '/v1/ip/update');
  expectReply(again, '/v1/ip/update', 'POST', 429, { code: 'refresh_too_soon', field: null });
  expect(Number(again.headers['retry-after'])).toBeGreaterThan(3500);

  const { value: reply } = await waitUntil(() => on('GET', '/v1/ip/database'), (r) => r.json.refresh_running === false && r.json.last_refresh !== null, 30_000, 100);
  expectReply(reply, '/v1/ip/database', 'GET', 200);
  expect(reply.json.last_refresh).toMatchObject({ trigger: `api (account ${srv.accountId})`, outcome: 'updated', error: null });
  expect(reply.json.last_refresh.nodes.map((n: { outcome: string }) => n.outcome)).toEqual(['failed', 'updated']);
  expect(reply.json.last_refresh.nodes[0].error).toMatch(/500/);
  expect(reply.json.source).toBe(reply.json.last_refresh.source);
}, 60_000);
