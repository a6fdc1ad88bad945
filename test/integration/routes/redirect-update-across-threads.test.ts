// An update is in force on every thread from the moment the API answers:
// a route cached on thread 1, switched through thread 0 between split_ratio
// 1 (everyone to A) and 0 (everyone to B), sends thread 1's very next visitor
// to the new page. Thread 1 is kept busy with other lookups meanwhile, so it
// always holds a recent LMDB read snapshot (a stale one used to bring back
// the old settings and cache them).
import { expect, it } from 'vitest';
import { api, backgroundMisses, createRoute, NO_RATE_LIMIT, pageOf, useRedirectServer, visitorId } from '../../helpers/routes.js';

const ROUNDS = 60;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

it('sends the next visitor on the other thread by the new settings', async () => {
  const route = await createRoute(sg.server, { intercept_level: 'off', split_ratio: 1 }, { thread: 0 });
  const visitor = visitorId();
  expect(pageOf(await sg.client.visit(route.code, { thread: 1, visitor }))).toBe('a');
  const busy = backgroundMisses(sg.server, 1);
  const stale: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const ratio = round % 2 === 0 ? 0 : 1;
      const put = await api(sg.server, 'PUT', `/v1/routes/${route.id}`, { split_ratio: ratio }, { thread: 0 });
      expect(put.status).toBe(200);
      const expected = ratio === 1 ? 'a' : 'b';
      const next = pageOf(await sg.client.visit(route.code, { thread: 1, visitor }));
      const again = pageOf(await sg.client.visit(route.code, { thread: 1, visitor }));
      if (next !== expected || again !== expected) stale.push(round);
    }
  } finally {
    await busy.stop();
  }
  expect(stale).toEqual([]);
});
