// Deleting a route gives its conversions back: once its data is purged,
// GET /v1/account's conversions_stored has gone down by the route's
// conversions, and the other route's are still counted. Before, neither
// field existed.
import { expect, it } from 'vitest';
import { clickIdRoute, mintClickIds, storedConversions } from '../../helpers/conversion-quota.js';
import { api, NO_RATE_LIMIT, useRedirectServer, waitUntil } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 1, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: '20' } });
const convert = (body: unknown) => api(sg.server, 'POST', '/v1/conversions', body);
const stored = async () => (await api(sg.server, 'GET', '/v1/account')).json.conversions_stored as number;

it("shows the count down by the deleted route's conversions once purged", async () => {
  const gone = await clickIdRoute(sg.server, 'gone');
  const kept = await clickIdRoute(sg.server, 'kept');
  const [goneId] = await mintClickIds(sg.client, gone.code, 1);
  const [keptId] = await mintClickIds(sg.client, kept.code, 1);
  for (let g = 0; g < 4; g++) expect((await convert({ click_id: goneId, goal: `g${g}` })).status).toBe(202);
  for (let g = 0; g < 2; g++) expect((await convert({ click_id: keptId, goal: `k${g}` })).status).toBe(202);
  expect(await stored()).toBe(6);

  expect((await api(sg.server, 'DELETE', `/v1/routes/${gone.id}`)).status).toBe(204);
  // The purge has run once the store holds the kept route's 2 alone.
  await waitUntil(() => storedConversions(sg.server.dataDir), (s) => s.rows === 2, 10_000, 50);
  expect(await stored()).toBe(2);
});
