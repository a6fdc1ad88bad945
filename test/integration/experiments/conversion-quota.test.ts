// An account stores at most SPLITGUARD_CONVERSION_QUOTA conversions (here 5):
// a conversion that would be newly stored while the account stores that many
// is 403 quota_exceeded naming the quota, on any of its routes; a repeat of a
// stored one is still answered as a duplicate (200, duplicate: true), storing
// nothing; in a batch each entry gets its own answer, the refused ones the
// error body. Before, an account stored conversions without bound (any
// visitor mints a click id, each converts once per goal).
import { expect, it } from 'vitest';
import { clickIdRoute, mintClickIds, storedConversions } from '../../helpers/conversion-quota.js';
import { expectReply } from '../../helpers/openapi.js';
import { api, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const QUOTA = 5;
const sg = useRedirectServer({ threads: 1, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });
const convert = (body: unknown) => api(sg.server, 'POST', '/v1/conversions', body);

it('refuses the next new conversion with 403, still answers repeats, and answers a batch entry by entry', async () => {
  const route = await clickIdRoute(sg.server);
  const [id] = await mintClickIds(sg.client, route.code, 1);
  for (let g = 0; g < QUOTA; g++) expect((await convert({ click_id: id, goal: `g${g}` })).status).toBe(202);

  const refused = await convert({ click_id: id, goal: 'one-more' });
  expectReply(refused, '/v1/conversions', 'POST', 403, { code: 'quota_exceeded', field: null });
  expect(refused.json).toEqual({
    error: `the account stores ${QUOTA} conversions, its quota (SPLITGUARD_CONVERSION_QUOTA); repeats are still answered, and deleting a route frees its conversions`,
    code: 'quota_exceeded',
    field: null,
  });
  const repeat = await convert({ click_id: id, goal: 'g0' });
  expect(repeat.status).toBe(200);
  expect(repeat.json).toMatchObject({ route_id: route.id, goal: 'g0', duplicate: true });

  // The quota is the account's: another of its routes is refused too.
  const other = await clickIdRoute(sg.server, 'other');
  const [otherId] = await mintClickIds(sg.client, other.code, 1);
  expect((await convert({ click_id: otherId })).json).toMatchObject({ code: 'quota_exceeded' });

  const batch = await convert({ conversions: [{ click_id: id, goal: 'g1' }, { click_id: id, goal: 'new-1' }, { click_id: 'not-a-click-id' }, { click_id: otherId, goal: 'new-2' }] });
  expectReply(batch, '/v1/conversions', 'POST', 200);
  const results = batch.json.results as Record<string, unknown>[];
  expect(results[0]).toMatchObject({ goal: 'g1', duplicate: true });
  expect(results[1]).toMatchObject({ code: 'quota_exceeded', field: null });
  expect(results[1].error).toContain(`stores ${QUOTA} conversions`);
  expect(results[2]).toMatchObject({ code: 'invalid_click_id', field: 'conversions[2].click_id' });
  expect(results[3]).toMatchObject({ code: 'quota_exceeded', field: null });

  expect(storedConversions(sg.server.dataDir)).toEqual({ rows: QUOTA, counted: { [sg.server.accountId]: QUOTA } });
});
