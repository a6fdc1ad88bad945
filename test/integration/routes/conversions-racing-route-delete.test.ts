// A route deleted while conversions for it wait for their commit takes them
// along: none is stored under the deleted route, and each is answered either
// 202 (committed before the deletion, then removed with the route's data) or
// 404 naming click_id (the data removed after the deletion's answer: finding
// 97). Before, the route was checked only when the request
// came: conversions committed after the deletion stayed in the store for
// good, where no API could read or remove them, some of them answered 202
// after the deletion's 204 (the console and API review of 2026-11-27).
import path from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { api, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 1, env: NO_RATE_LIMIT });
});
afterAll(() => server?.close());

/** Conversions and conversion days stored under `routeId`, read by a separate reader of the store. */
function storedUnder(routeId: number): number {
  const env = open({ path: path.join(server.dataDir, 'db'), maxDbs: 32, readOnly: true });
  try {
    return ['conversions', 'conversion_days'].reduce((n, name) => n + env.openDB({ name }).getKeysCount({ start: [routeId], end: [routeId + 1] }), 0);
  } finally {
    env.close();
  }
}

const post = (clickId: string) => request({ port: server.ports[0], ca: server.ca, method: 'POST', path: '/v1/conversions', json: { click_id: clickId, goal: 'buy' }, headers: { Authorization: `Bearer ${server.apiKey}` } });

it('stores nothing under a route deleted while its conversions wait for their commit', async () => {
  for (let round = 0; round < 5; round++) {
    const created = await api(server, 'POST', '/v1/routes', { name: `race ${round}`, page_a: 'https://a.example/', page_b: 'https://b.example/', append_click_id: true });
    const { id, code } = created.json as { id: number; code: string };
    const client = new RedirectClient(server, 4);
    const clickIds: string[] = [];
    for (let i = 0; i < 40; i++) clickIds.push(new URL((await client.visit(code, { cookie: '' })).location!).searchParams.get('sg_cid')!);
    client.close();
    // The conversions spread over 10 ms, the deletion 4 ms in.
    const conversions = clickIds.map((cid, i) => new Promise((r) => setTimeout(r, i % 10)).then(() => post(cid)));
    const deletion = new Promise((r) => setTimeout(r, 4)).then(() => api(server, 'DELETE', `/v1/routes/${id}`));
    const [deleted, ...answers] = await Promise.all([deletion, ...conversions]);
    expect(deleted.status).toBe(204);
    for (const a of answers) {
      expect([202, 404], a.body).toContain(a.status);
      if (a.status === 404) expect(a.json).toMatchObject({ code: 'not_found', field: 'click_id' });
    }
    // The route's data goes after the deletion's answer, in bounded transactions (finding 97).
    await expect.poll(() => storedUnder(id), { message: `round ${round}: ${answers.map((a) => a.status).join(' ')}`, timeout: 5000 }).toBe(0);
  }
});
