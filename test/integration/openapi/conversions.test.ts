// POST /v1/conversions and the experiment object against docs/openapi.yaml:
// click ids from a real redirect; 202, 200 duplicate, a batch, 400
// invalid_click_id and invalid_parameter, 404 for another account's route;
// GET /v1/routes/{id} of a route of three variants with conversions.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callOn, type CallOptions, expectReply } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, RedirectClient, visitorId, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let srv: TestServer;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  srv = await startServer({ env: NO_RATE_LIMIT });
});
afterAll(async () => {
  await srv?.close();
});

it('POST /v1/conversions: 202, 200 duplicate, a batch, 400 and 404; the experiment in GET /v1/routes/{id}', async () => {
  const route = (await on('POST', '/v1/routes', {
    json: { name: 'exp', variants: ['a', 'b', 'c'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), append_click_id: true, intercept_level: 'off' },
  })).json;
  const client = new RedirectClient(srv);
  const ids: string[] = [];
  try {
    for (let i = 0; i < 12; i++) ids.push(/sg_cid=([A-Za-z0-9_-]+)/.exec((await client.visit(route.code, { visitor: visitorId() })).location!)![1]);
  } finally {
    client.close();
  }
  expectReply(await on('POST', '/v1/conversions', { json: { click_id: ids[0], goal: 'signup', value: 9.5 } }), '/v1/conversions', 'POST', 202);
  expectReply(await on('POST', '/v1/conversions', { json: { click_id: ids[0], goal: 'signup' } }), '/v1/conversions', 'POST', 200);
  const batch = await on('POST', '/v1/conversions', { json: { conversions: [...ids.slice(1).map((click_id) => ({ click_id })), { click_id: 'forged' }] } });
  expectReply(batch, '/v1/conversions', 'POST', 200);
  expect(batch.json.results.at(-1)).toMatchObject({ code: 'invalid_click_id' });
  expectReply(await on('POST', '/v1/conversions', { json: { click_id: 'forged' } }), '/v1/conversions', 'POST', 400, { code: 'invalid_click_id', field: 'click_id' });
  expectReply(await on('POST', '/v1/conversions', { json: { click_id: ids[0], goal: 'No Spaces' } }), '/v1/conversions', 'POST', 400, { code: 'invalid_parameter', field: 'goal' });
  const other = await newAccount(srv, 'other');
  expectReply(await on('POST', '/v1/conversions', { json: { click_id: ids[0] }, key: other.api_key }), '/v1/conversions', 'POST', 404, { code: 'not_found', field: 'click_id' });

  const { value: detail } = await waitUntil(() => on('GET', `/v1/routes/${route.id}`), (r) => r.json.experiment.variants.reduce((s: number, v: { clicks: number }) => s + v.clicks, 0) === 12, 5000, 100);
  expectReply(detail, '/v1/routes/{id}', 'GET', 200);
  expect(detail.json.experiment.goals).toEqual(['conversion', 'signup']);
});
