// With SPLITGUARD_CONVERSION_QUOTA=0 the server sets no bound on the
// conversions an account stores: GET /v1/account says so with
// `conversion_quota: null` (never 0, which would read as "none allowed"),
// and still counts what the account stores. Before, neither field existed.
import { expect, it } from 'vitest';
import { clickIdRoute, mintClickIds } from '../../helpers/conversion-quota.js';
import { expectReply } from '../../helpers/openapi.js';
import { api, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 1, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: '0' } });

it('shows conversion_quota null and the conversions stored', async () => {
  const route = await clickIdRoute(sg.server);
  const [id] = await mintClickIds(sg.client, route.code, 1);
  expect((await api(sg.server, 'POST', '/v1/conversions', { click_id: id })).status).toBe(202);
  const r = await api(sg.server, 'GET', '/v1/account');
  expectReply(r, '/v1/account', 'GET', 200);
  expect(r.json).toMatchObject({ conversions_stored: 1, conversion_quota: null });
});
