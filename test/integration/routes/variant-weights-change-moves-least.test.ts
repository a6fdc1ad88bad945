// A weight change through the API moves only the returning visitors it must
// (experiments/split.ts nextLayout, kept with the route): weights 1/1/2
// (a [0, .25), b [.25, .5), c [.5, 1)) changed to 2/1/1 leave b where it
// was and give a the buckets c frees, its highest: [.75, 1). Visitors of a,
// of b and of c's lower half keep their page, on both threads and after a
// restart; only c's upper half moves, to a. Laid out again from the
// cumulative weights (a [0, .5), b [.5, .75), c [.75, 1)), every visitor of
// b, whose share did not change, would move to a.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';
import { visitorWithBucket } from '../../helpers/visitor-bucket.js';

const PAGES = ['https://a.example.com/', 'https://b.example.com/', 'https://c.example.com/'];
const variants = (weights: number[]) => weights.map((weight, i) => ({ url: PAGES[i], weight }));
/** Buckets and the variant each is sent to before and after the change. */
const VISITORS: [bucket: number, before: string, after: string][] = [
  [0.1, 'a', 'a'], [0.3, 'b', 'b'], [0.45, 'b', 'b'], [0.6, 'c', 'c'], [0.7, 'c', 'c'], [0.8, 'c', 'a'], [0.99, 'c', 'a'],
];

const dataDir = tempDataDir();
const start = () => startServer({ dataDir, threads: 2, env: NO_RATE_LIMIT });
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The variant key each of VISITORS is sent to, on `thread`. */
async function pages(server: TestServer, route: { id: number; code: string }, thread: number): Promise<string[]> {
  const client = new RedirectClient(server);
  try {
    const out: string[] = [];
    for (const [bucket] of VISITORS) {
      const v = await client.visit(route.code, { visitor: visitorWithBucket(route.id, bucket), thread });
      expect(v.status).toBe(302);
      out.push('abc'[PAGES.findIndex((p) => (v.location ?? '').startsWith(p))] ?? `none: ${v.location}`);
    }
    return out;
  } finally {
    client.close();
  }
}

it('moves only the visitors of the share that shrank, to the variant that grew', async () => {
  let s = (server = await start());
  const created = await api(s, 'POST', '/v1/routes', { name: 'weights', variants: variants([1, 1, 2]), intercept_level: 'off' });
  expect(created.status, created.body).toBe(201);
  const route = created.json as { id: number; code: string };
  for (const thread of [0, 1]) expect(await pages(s, route, thread)).toEqual(VISITORS.map(([, before]) => before));

  const put = await api(s, 'PUT', `/v1/routes/${route.id}`, { variants: variants([2, 1, 1]) });
  expect(put.status, put.body).toBe(200);
  const after = VISITORS.map(([, , a]) => a);
  for (const thread of [0, 1]) expect(await pages(s, route, thread)).toEqual(after);

  // The layout is stored with the route: a restart keeps it.
  expect(await s.stop()).toBe(0);
  s = server = await start();
  for (const thread of [0, 1]) expect(await pages(s, route, thread)).toEqual(after);
});
