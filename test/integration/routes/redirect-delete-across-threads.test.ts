// A deletion is in force on every thread from the moment the API answers:
// a route created on thread 0 and visited (so cached) on thread 1, then
// deleted through thread 0, is 404 on thread 1's very next request, and
// stays 404. Thread 1 is kept busy with other lookups meanwhile, so it
// always holds a recent LMDB read snapshot (a stale one used to be read back
// and cached, leaving the deleted link live on that thread).
import { expect, it } from 'vitest';
import { api, backgroundMisses, createRoute, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const ROUNDS = 60;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

it('answers 404 on the other thread right after DELETE', async () => {
  const busy = backgroundMisses(sg.server, 1);
  const live: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const route = await createRoute(sg.server, { intercept_level: 'off' }, { thread: 0 });
      // Visit until thread 1 serves (and caches) it; see redirect-create-across-threads for "at once".
      await expect.poll(async () => (await sg.client.visit(route.code, { thread: 1 })).status, { timeout: 2000, interval: 5 }).toBe(302);
      const del = await api(sg.server, 'DELETE', `/v1/routes/${route.id}`, undefined, { thread: 0 });
      expect(del.status).toBe(204);
      const next = await sg.client.visit(route.code, { thread: 1 });
      const again = await sg.client.visit(route.code, { thread: 1 });
      if (next.status !== 404 || again.status !== 404) live.push(round);
      else expect(next.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  } finally {
    await busy.stop();
  }
  expect(live).toEqual([]);
});
