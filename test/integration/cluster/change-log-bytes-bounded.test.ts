// Cluster mode: the change log is bounded in bytes as well as in count
// (SPLITGUARD_CHANGE_LOG_MB, here 1): 200 renames of a route whose 8
// variants have 2,000-character URLs (about 17 KB a change, 3.4 MB in all)
// leave the log within the bound and a change, and a node stopped meanwhile
// catches up from a snapshot with the route's last name. Before, only the
// count (100,000 changes) bounded it, and a tenant rewriting such a route
// within its budgets held 2.1 GB there.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: { ...NO_RATE_LIMIT, SPLITGUARD_CHANGE_LOG_MB: '1' } });
const MB = 2 ** 20;
const logBytes = async () => Number((await cluster.pg.query<{ bytes: string }>('SELECT coalesce(sum(pg_column_size(changes.*)), 0)::bigint AS bytes FROM changes'))[0].bytes);

it.skipIf(cluster.skip)('keeps the change log within its bytes, and a node behind it catches up', async () => {
  // Random paths: PostgreSQL compresses a record, and repeated letters would take almost nothing.
  const variants = Array.from({ length: 8 }, (_, i) => ({ url: `https://v${i}.example.com/${randomBytes(1000).toString('hex')}`, weight: 1 }));
  const created = await api(cluster.node(0), 'POST', '/v1/routes', { name: 'large', variants });
  expect(created.status, created.body).toBe(201);
  const id = (created.json as { id: number }).id;
  await cluster.nodes[1].stop();
  for (let i = 0; i < 200; i++) {
    const r = await api(cluster.node(0), 'PUT', `/v1/routes/${id}`, { name: `large ${i}` });
    expect(r.status, r.body).toBe(200);
  }
  expect(await logBytes()).toBeGreaterThan(2 * MB);
  // A trim every 15 heartbeats of 2 s: within about 30 s.
  await waitUntil(logBytes, (bytes) => bytes <= MB + 64 * 1024, 45_000, 500);
  await cluster.restart(1);
  await waitUntil(async () => (await api(cluster.node(1), 'GET', `/v1/routes/${id}`)).json as { name?: string }, (r) => r.name === 'large 199', 20_000, 200);
  expect(cluster.nodes[1].logs().some((l) => l.event === 'replica_snapshot')).toBe(true);
}, 120_000);
