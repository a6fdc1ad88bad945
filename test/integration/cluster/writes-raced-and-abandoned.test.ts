// A cluster node (two threads) under the attack patterns of
// test/integration/attack/, aimed at what cluster mode adds: 200 route
// creations raced at once (each a PostgreSQL transaction waiting for one of
// a few pooled connections), the same requests sent by clients that vanish
// before reading the answer, and /readyz pipelined without reading. Every
// raced creation gets its 201; a vanished client's creation either happened
// whole (in PostgreSQL and in the replica, listed) or not at all; the node
// stays up and a well-behaved client (the canary: /readyz, a redirect, a
// creation) is answered within 2 s throughout.
import { expect, it } from 'vitest';
import { assertCanary, type CanaryReport, pipelineAndDrop, sendAndDrop, startCanary } from '../../helpers/attack.js';
import { useCluster } from '../../helpers/cluster.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../../helpers/routes.js';

const RACERS = 200;
const CANARY_BOUND_MS = 2000;
const cluster = useCluster({ nodes: 1, nginx: false, threads: 2, env: NO_RATE_LIMIT });

function createRequest(key: string, name: string): string {
  const body = JSON.stringify({ name, page_a: PAGE_A, page_b: PAGE_B });
  return `POST /v1/routes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

it.skipIf(cluster.skip)('answers raced writes, keeps abandoned ones whole or absent, and keeps serving', async () => {
  const node = cluster.nodes[0];
  const server = { ...node, apiKey: cluster.apiKey };
  const route = await createRoute(server);
  let report: CanaryReport;
  const canary = startCanary(
    server,
    [
      { path: '/readyz', status: 200 },
      { path: `/r/${route.code}`, status: 302 },
      { method: 'POST', path: '/v1/routes', key: cluster.apiKey, json: { name: 'canary', page_a: PAGE_A, page_b: PAGE_B }, status: 201 },
    ],
    CANARY_BOUND_MS,
  );
  try {
    const raced = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        rawRequest(createRequest(cluster.apiKey, `raced ${i}`), { port: node.ports[i % 2], ca: node.ca, timeoutMs: 15_000, localAddress: `127.0.3.${1 + (i % 4)}` }),
      ),
    );
    expect(raced.filter((r) => r.status !== 201).map((r) => `${r.outcome} ${r.status} ${r.raw.slice(0, 120)}`)).toEqual([]);

    await Promise.all(
      Array.from({ length: 40 }, (_, i) => sendAndDrop(node.ports[i % 2], createRequest(cluster.apiKey, `vanished ${i}`), i % 2 ? 'rst' : 'fin', i % 3 === 0 ? 0 : 20)),
    );
    await Promise.all(node.ports.map((port) => pipelineAndDrop(port, 'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 500, 'rst')));
  } finally {
    report = await canary.stop();
  }
  assertCanary(report, `${RACERS} raced creations, vanishing writers, pipelined /readyz`);

  // Let writes whose clients vanished finish, then compare PostgreSQL with what the node lists.
  await new Promise((r) => setTimeout(r, 1000));
  const stored = await cluster.pg.query<{ name: string }>("SELECT name FROM routes WHERE name LIKE 'vanished %' OR name LIKE 'raced %'");
  expect(stored.filter((r) => r.name.startsWith('raced '))).toHaveLength(RACERS);
  const listed = new Set<string>();
  for (let page = 1; ; page++) {
    const r = await api(server, 'GET', `/v1/routes?limit=100&page=${page}`);
    for (const x of r.json.data) listed.add(x.name);
    if (r.json.data.length < 100) break;
  }
  for (const { name } of stored) expect(listed.has(name), name).toBe(true);
  const [{ n }] = await cluster.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM routes');
  expect((await api(server, 'GET', '/v1/routes')).json.pagination.total).toBe(n);
  expect(node.process.exitCode).toBeNull();
});
