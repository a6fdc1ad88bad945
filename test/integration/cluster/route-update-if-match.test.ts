// Cluster mode: PUT /v1/routes/<id> with If-Match is checked inside the
// update's transaction, against the row it locks, on PostgreSQL: clients on
// two nodes racing with the same ETag, exactly one wins and the others are
// 412; the winner's ETag, read on the other node once replicated, is the
// one the next conditional update needs. A DELETE with a stale tag is 412.
import { expect, it } from 'vitest';
import { request, type Response } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('of 20 clients on two nodes racing with the same tag, exactly one wins', async () => {
  const nodes = [cluster.node(0), cluster.node(1)];
  const put = (n: number, id: number, json: unknown, ifMatch: string): Promise<Response> =>
    request({ port: nodes[n].ports[0], ca: nodes[n].ca, method: 'PUT', path: `/v1/routes/${id}`, key: nodes[n].apiKey, json, headers: { 'If-Match': ifMatch } });
  const created = await api(nodes[0], 'POST', '/v1/routes', { name: 'raced', page_a: 'https://a.example/', page_b: 'https://b.example/' });
  expect(created.status).toBe(201);
  const id = created.json.id as number;
  const tag = created.headers.etag as string;
  await waitUntil(() => api(nodes[1], 'GET', `/v1/routes/${id}`), (r) => r.status === 200, 10_000);

  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => put(i % 2, id, { name: `client ${i}` }, tag)));
  const won = answers.filter((r) => r.status === 200);
  expect(won, answers.map((r) => r.status).join(' ')).toHaveLength(1);
  for (const r of answers.filter((a) => a.status !== 200)) expect(r.json).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });

  // The second node serves the winner's version once replicated, with the winner's tag, and that tag is the one that works there.
  const { value: seen } = await waitUntil(() => api(nodes[1], 'GET', `/v1/routes/${id}`), (r) => r.json.name === won[0].json.name, 10_000);
  expect(seen.headers.etag).toBe(won[0].headers.etag);
  expect((await put(1, id, { name: 'stale' }, tag)).status).toBe(412);
  const next = await put(1, id, { name: 'next' }, seen.headers.etag as string);
  expect(next.status).toBe(200);

  // A DELETE is judged the same way, on the row it locks.
  const del = (ifMatch: string) => request({ port: nodes[0].ports[0], ca: nodes[0].ca, method: 'DELETE', path: `/v1/routes/${id}`, key: nodes[0].apiKey, headers: { 'If-Match': ifMatch } });
  expect((await del(seen.headers.etag as string)).status).toBe(412);
  expect((await api(nodes[0], 'GET', `/v1/routes/${id}`)).status).toBe(200);
  expect((await del(next.headers.etag as string)).status).toBe(204);
});
