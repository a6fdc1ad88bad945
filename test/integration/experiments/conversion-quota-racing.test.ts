// The conversion quota holds under racing requests: single conversions and
// batches for two routes of one account, sent at once on both server
// threads, past a quota of 50. The count is read and written in the commit's
// own transaction (the group commit writes many requests in one), so exactly
// 50 are stored and acknowledged, every other one is 403 quota_exceeded, and
// the account's count is the number of its stored conversions.
import { expect, it } from 'vitest';
import { clickIdRoute, interleavedBatches, mintClickIds, storedConversions } from '../../helpers/conversion-quota.js';
import { api, inParallel, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const QUOTA = 50;
const sg = useRedirectServer({ threads: 2, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });

it('stores no more than the quota when singles and batches race on both threads', async () => {
  // 2 routes × 4 click ids × 20 goals: 160 distinct new conversions.
  const pairs: { click_id: string; goal: string }[] = [];
  for (const name of ['one', 'two']) {
    const route = await clickIdRoute(sg.server, name);
    for (const id of await mintClickIds(sg.client, route.code, 4)) for (let g = 0; g < 20; g++) pairs.push({ click_id: id, goal: `g${g}` });
  }
  // Every 8th request a batch of 10, the others one conversion each, interleaved.
  const requests = interleavedBatches(pairs, 8, 10);
  const answers = await inParallel(requests, requests.length, (body, i) => api(sg.server, 'POST', '/v1/conversions', body, { thread: i % 2 }));

  let stored = 0;
  let refused = 0;
  for (const a of answers) {
    const items = a.status === 200 && Array.isArray(a.json?.results) ? (a.json.results as Record<string, unknown>[]) : [a.status === 202 ? { duplicate: false } : a.json];
    for (const item of items) {
      if (item.duplicate === false) stored++;
      else {
        expect(item, JSON.stringify(a.json)).toMatchObject({ code: 'quota_exceeded' });
        refused++;
      }
    }
  }
  expect(stored + refused).toBe(pairs.length);
  expect(stored).toBe(QUOTA);
  expect(storedConversions(sg.server.dataDir)).toEqual({ rows: QUOTA, counted: { [sg.server.accountId]: QUOTA } });
}, 60_000);
