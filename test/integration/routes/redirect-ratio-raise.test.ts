// Raising split_ratio only moves visitors from B to A: 1000 visitors at 0.3,
// then PUT 0.6: every visitor that was on A stays on A, some B move to A,
// none moves A → B. The update is in force on the other thread's very next
// request (thread 1 had the route cached; the PUT goes to thread 0).
import { expect, it } from 'vitest';
import { api, createRoute, inParallel, NO_RATE_LIMIT, pageOf, useRedirectServer, visitorId } from '../../helpers/routes.js';

const N = 1000;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

it('moves only B → A when the ratio goes from 0.3 to 0.6, on every thread at once', async () => {
  const route = await createRoute(sg.server, { split_ratio: 0.3 });
  const ids = Array.from({ length: N }, visitorId);
  const pagesOn = (thread: number) => inParallel(ids, 32, async (visitor) => pageOf(await sg.client.visit(route.code, { visitor, thread })));

  const before0 = await pagesOn(0);
  const before1 = await pagesOn(1); // also puts the route in thread 1's cache
  expect(before1).toEqual(before0);

  const put = await api(sg.server, 'PUT', `/v1/routes/${route.id}`, { split_ratio: 0.6 }, { thread: 0 });
  expect(put.status).toBe(200);
  expect(put.json.split_ratio).toBe(0.6);

  // Straight after the PUT, on the other thread (redirect-update-across-threads
  // checks "the very next request" under load).
  const after1 = await pagesOn(1);
  const after0 = await pagesOn(0);
  expect(after1).toEqual(after0);

  let aToB = 0;
  let bToA = 0;
  for (let i = 0; i < N; i++) {
    if (before0[i] === 'a' && after1[i] === 'b') aToB++;
    if (before0[i] === 'b' && after1[i] === 'a') bToA++;
  }
  expect(aToB).toBe(0);
  // Expected 300 of 1000 move (sd ≈ 14.5); anything near 0 means the update was not seen.
  expect(bToA).toBeGreaterThan(200);
  expect(bToA).toBeLessThan(400);
  const aBefore = before0.filter((p) => p === 'a').length;
  expect(aBefore).toBeGreaterThan(200);
  expect(aBefore).toBeLessThan(400);
});
