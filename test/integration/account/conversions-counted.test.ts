// GET /v1/account counts the conversions the account stores as the quota
// counts them (SPLITGUARD_CONVERSION_QUOTA, here 50): N new ones over two of
// its routes, singles and a batch, show N; a repeat (200 duplicate) stores
// nothing and adds nothing; another account's conversions are not its. PUT
// /v1/account answers with the same figures. The figure is the store's own
// count (meta conversions:account:<id>). Before, neither field existed.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { clickIdRoute, mintClickIds, storedConversions } from '../../helpers/conversion-quota.js';
import { expectReply } from '../../helpers/openapi.js';
import { api, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const QUOTA = 50;
const sg = useRedirectServer({ threads: 2, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });
const convert = (body: unknown) => api(sg.server, 'POST', '/v1/conversions', body);

it('shows the N new conversions stored, a repeat not counted', async () => {
  const other: { account_id: number; api_key: string } = await runCliJson(['account', 'create', '--name', 'other'], sg.server.dataDir);
  const one = await clickIdRoute(sg.server, 'one');
  const two = await clickIdRoute(sg.server, 'two');
  const [a, b] = await mintClickIds(sg.client, one.code, 2);
  const [c] = await mintClickIds(sg.client, two.code, 1);
  expect((await convert({ click_id: a })).status).toBe(202);
  expect((await convert({ click_id: a, goal: 'signup' })).status).toBe(202);
  expect((await convert({ click_id: b })).status).toBe(202);
  const batch = await convert({ conversions: [{ click_id: c }, { click_id: c, goal: 'signup' }, { click_id: a }] });
  expect(batch.status).toBe(200);
  expect((batch.json.results as { duplicate: boolean }[]).map((x) => x.duplicate)).toEqual([false, false, true]);
  const repeat = await convert({ click_id: b });
  expect(repeat.status).toBe(200);
  expect(repeat.json.duplicate).toBe(true);
  const N = 5;

  const r = await api(sg.server, 'GET', '/v1/account');
  expectReply(r, '/v1/account', 'GET', 200);
  expect(r.json).toMatchObject({ conversions_stored: N, conversion_quota: QUOTA });
  expect(storedConversions(sg.server.dataDir).counted[sg.server.accountId]).toBe(N);

  const renamed = await api(sg.server, 'PUT', '/v1/account', { name: 'counted' });
  expectReply(renamed, '/v1/account', 'PUT', 200);
  expect(renamed.json).toMatchObject({ name: 'counted', conversions_stored: N, conversion_quota: QUOTA });

  const theirs = await api(sg.server, 'GET', '/v1/account', undefined, { key: other.api_key });
  expect(theirs.json).toMatchObject({ id: other.account_id, conversions_stored: 0, conversion_quota: QUOTA });
});
