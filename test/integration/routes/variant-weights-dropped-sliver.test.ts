// A tenant's weight changes cannot leave part of the split to a variant the
// route no longer has (experiments/split.ts nextLayout): after a route of
// four variants is changed to weights with slivers of 3e-15 and 1e-15 for
// its third variant and then to two variants, the visitor whose bucket is
// exactly 0.5, where the sliver was, gets a 302 to a or b on both threads,
// and the server goes on. Before, variant c kept [0.5, 0.5 + 1e-15): the
// redirect threw for that visitor, the handler returned without answering,
// and uWS ended the process (at every start, as the route was stored).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { visitorWithBucket } from '../../helpers/visitor-bucket.js';

const PAGES = ['https://a.example.com/', 'https://b.example.com/', 'https://c.example.com/', 'https://d.example.com/'];
const variants = (weights: number[]) => weights.map((weight, i) => ({ url: PAGES[i], weight }));

let server: TestServer;
let client: RedirectClient;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  client = new RedirectClient(server);
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

it('sends the visitor at the sliver to a variant the route has, and keeps serving', async () => {
  for (const appendClickId of [false, true]) {
    const created = await api(server, 'POST', '/v1/routes', { name: 'slivers', variants: variants([1, 1, 0, 0]), append_click_id: appendClickId, intercept_level: 'off' });
    expect(created.status, created.body).toBe(201);
    const route = created.json as { id: number; code: string };
    for (const weights of [[0.5, 0, 3e-15, 0.5 - 3e-15], [0.4, 0, 1e-15, 0.6 - 1e-15], [1, 1]]) {
      const r = await api(server, 'PUT', `/v1/routes/${route.id}`, { variants: variants(weights) });
      expect(r.status, r.body).toBe(200);
    }
    const visitor = visitorWithBucket(route.id, 0.5);
    for (const thread of [0, 1]) {
      for (const method of ['HEAD', 'GET'] as const) {
        const v = await client.visit(route.code, { visitor, thread, method });
        expect(v.status).toBe(302);
        expect(PAGES.slice(0, 2).some((p) => (v.location ?? '').startsWith(p)), v.location).toBe(true);
      }
    }
  }
  expect((await api(server, 'GET', '/healthz')).status).toBe(200);
});
