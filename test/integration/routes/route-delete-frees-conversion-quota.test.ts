// Deleting a route gives its conversions back to the account's quota
// (SPLITGUARD_CONVERSION_QUOTA, here 5): once the route's data has been
// purged, the account's count has dropped by its conversions and another
// route stores new ones again, up to the quota. Before, the count had no way
// down: an account at its quota stayed there for good.
import { expect, it } from 'vitest';
import { clickIdRoute, mintClickIds, storedConversions } from '../../helpers/conversion-quota.js';
import { api, NO_RATE_LIMIT, useRedirectServer, waitUntil } from '../../helpers/routes.js';

const QUOTA = 5;
const sg = useRedirectServer({ threads: 1, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });
const convert = (body: unknown) => api(sg.server, 'POST', '/v1/conversions', body);

it("gives the deleted route's conversions back once its data is purged", async () => {
  const full = await clickIdRoute(sg.server, 'full');
  const kept = await clickIdRoute(sg.server, 'kept');
  const [fullId] = await mintClickIds(sg.client, full.code, 1);
  const [keptId] = await mintClickIds(sg.client, kept.code, 1);
  expect((await convert({ click_id: keptId, goal: 'k0' })).status).toBe(202);
  for (let g = 0; g < QUOTA - 1; g++) expect((await convert({ click_id: fullId, goal: `f${g}` })).status).toBe(202);
  expect((await convert({ click_id: keptId, goal: 'k1' })).status).toBe(403);

  expect((await api(sg.server, 'DELETE', `/v1/routes/${full.id}`)).status).toBe(204);
  const { value: after } = await waitUntil(() => storedConversions(sg.server.dataDir), (s) => s.rows === 1, 10_000, 50);
  expect(after.counted).toEqual({ [sg.server.accountId]: 1 });

  // The 4 freed places are the kept route's now, and then the quota holds again.
  for (let g = 1; g < QUOTA; g++) expect((await convert({ click_id: keptId, goal: `k${g}` })).status).toBe(202);
  expect((await convert({ click_id: keptId, goal: 'k-past' })).json).toMatchObject({ code: 'quota_exceeded' });
  expect(storedConversions(sg.server.dataDir)).toEqual({ rows: QUOTA, counted: { [sg.server.accountId]: QUOTA } });
});
