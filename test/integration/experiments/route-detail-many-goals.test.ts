// A client that tries to give a route 500 conversion goals (one click id
// converts once per goal: five batches of 100, 5 of the minute's 60 requests)
// must not stall the thread that serves the route's detail, which computes
// every goal's statistics twice (window and lifetime), the probability of
// being best over all 8 arms each time. Before the bound on goals (20 a
// route) and the one-grid quadrature: 13 s of one server thread and a 1.4 MB
// answer, every other client of that thread (every account's redirects)
// waiting meanwhile. A well-behaved client is served throughout.
import { expect, it } from 'vitest';
import { assertCanary, sleep, startCanary } from '../../helpers/attack.js';
import { request } from '../../helpers/client.js';
import { api, useRedirectServer, visitorId } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 2 }); // the contract's 60 requests a minute

it('a route with many goals does not stall its thread: the detail answers within 2 s and other clients are served', async () => {
  const r = await api(sg.server, 'POST', '/v1/routes', {
    name: 'many goals', variants: Array.from({ length: 8 }, (_, i) => ({ url: `https://e.example.com/${i}`, weight: 1 })),
    append_click_id: true, intercept_level: 'off',
  });
  expect(r.status).toBe(201);
  const route = r.json;
  // Visitors on every arm (redirects cost no API request), and one click id.
  let clickId = '';
  for (let i = 0; i < 40; i++) {
    const v = await sg.client.visit(route.code, { visitor: visitorId() });
    clickId = /sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1];
  }
  await sleep(2500); // the visits' flush
  for (let b = 0; b < 5; b++) {
    const batch = Array.from({ length: 100 }, (_, k) => ({ click_id: clickId, goal: `g${b}-${k}-${'x'.repeat(50)}` }));
    const answer = await api(sg.server, 'POST', '/v1/conversions', { conversions: batch });
    expect(answer.status).toBe(200); // entries past the route's 20 goals are refused one by one
  }
  const canary = startCanary(sg.server, [{ path: '/healthz', status: 200 }, { path: `/r/${route.code}`, status: 302 }], 2000);
  await sleep(300);
  const started = performance.now();
  const detail = await request({ port: sg.server.ports[0], ca: sg.server.ca, path: `/v1/routes/${route.id}`, key: sg.server.apiKey, timeoutMs: 60_000 });
  const ms = performance.now() - started;
  await sleep(300);
  const report = await canary.stop();
  expect(detail.status).toBe(200);
  expect(detail.json.experiment.goals.length).toBeLessThanOrEqual(21); // 20 and the default goal
  assertCanary(report, 'the route detail of a route with many goals');
  expect(ms, `GET /v1/routes/<id> with ${detail.json.experiment.goals.length} goals took ${Math.round(ms)} ms, ${detail.body.length} bytes`).toBeLessThan(2000);
}, 120_000);
