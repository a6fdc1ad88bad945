// With the account limit decided in Redis (the answer arrives later, while
// the request's body is already arriving), the contract's order of checks
// holds as on a single node: within the limit a body is read and handled
// (201, 400), unknown paths and methods answer 404 and 405 with Allow, all
// with the RateLimit headers; past the limit the same requests, bodies and
// an oversized body included, answer 429 with Retry-After, never 201, 404,
// 405 or 413.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { limits, request } from '../../helpers/client.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { nodeMetric } from '../../helpers/cluster-nodes.js';
import type { TestServer } from '../../helpers/server.js';

let cluster: TestCluster;
let node: TestServer;
beforeAll(async () => {
  cluster = await startCluster({ nodes: 1, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '4', SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });
  [node] = cluster.nodes;
});
afterAll(async () => {
  await cluster?.close();
});

const ROUTE = { name: 'ordered', page_a: 'https://a.example/', page_b: 'https://b.example/' };
const send = (method: string, path: string, extra: { json?: unknown; body?: string } = {}) =>
  request({ port: node.ports[0], ca: node.ca, method, path, key: node.apiKey, ...extra, headers: extra.body ? { 'Content-Type': 'application/json' } : {} });

it('reads and answers within the limit, and answers 429 before anything else past it', async () => {
  const created = await send('POST', '/v1/routes', { json: ROUTE });
  expect(created.status).toBe(201);
  expect(created.json).toMatchObject({ name: 'ordered' });
  expect(limits(created)).toMatchObject({ limit: 4, remaining: 3 });

  const invalid = await send('POST', '/v1/routes', { body: '{"name": ' });
  expect(invalid.status).toBe(400);
  expect(invalid.json.code).toBe('invalid_json');
  expect(limits(invalid).remaining).toBe(2);

  const missing = await send('GET', '/v1/nothing-here');
  expect(missing.status).toBe(404);
  expect(limits(missing).remaining).toBe(1);

  const wrongMethod = await send('DELETE', '/v1/account');
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.allow).toBe('GET, PUT');
  expect(limits(wrongMethod).remaining).toBe(0);

  const past = [
    await send('POST', '/v1/routes', { json: ROUTE }),
    await send('GET', '/v1/nothing-here'),
    await send('DELETE', '/v1/account'),
    await send('POST', '/v1/routes', { body: `{"name": "${'x'.repeat(70 * 1024)}"}` }),
  ];
  for (const r of past) {
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'rate_limited', field: null });
    expect(limits(r)).toMatchObject({ limit: 4, remaining: 0 });
    expect(limits(r).retryAfter).toBeGreaterThanOrEqual(1);
  }
  const list = await request({ port: node.ports[0], ca: node.ca, path: '/v1/routes', key: node.apiKey });
  expect(list.status).toBe(429);
  expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(0);
});
