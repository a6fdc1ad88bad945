// A new route works on every thread from the moment the API answers: created
// through thread 0, its short link redirects on thread 1's very next request
// (a code looked up before it existed is not remembered as unknown). Thread 1
// is kept busy with other lookups meanwhile, so it always holds a recent LMDB
// read snapshot (a stale one used to hide the new route and cache it as
// unknown until the next route change).
import { expect, it } from 'vitest';
import { backgroundMisses, createRoute, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const ROUNDS = 60;
const sg = useRedirectServer({ threads: 2, env: NO_RATE_LIMIT });

it('redirects on the other thread right after POST', async () => {
  const busy = backgroundMisses(sg.server, 1);
  const missing: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const route = await createRoute(sg.server, { intercept_level: 'off', split_ratio: 1 }, { thread: 0 });
      const next = await sg.client.visit(route.code, { thread: 1 });
      const again = await sg.client.visit(route.code, { thread: 1 });
      if (next.status !== 302 || again.status !== 302) missing.push(round);
      else expect(next.location).toBe(route.page_a);
    }
  } finally {
    await busy.stop();
  }
  expect(missing).toEqual([]);
});
