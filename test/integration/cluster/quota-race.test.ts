// Cluster mode, two nodes: the lifetime quota is PostgreSQL's to enforce,
// in the writing transaction. Creations raced through both nodes at once,
// far more than the quota allows, get exactly the quota's worth of 201s,
// the rest 403 quota_exceeded, and every code is distinct.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { api, inParallel, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const ALLOWED = 12;
const ATTEMPTS = 60;
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('racing creations across nodes never pass the quota', async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const session = await consoleSession(cluster.nodes[0], boot.admin_email, boot.admin_password);
  expect((await session.call('PUT', `/accounts/${boot.account_id}`, { quota: ALLOWED })).status).toBe(200);
  // Node B has the new quota too before the race starts (it would not matter: PostgreSQL decides).
  const answers = await inParallel(Array.from({ length: ATTEMPTS }, (_, i) => i), 20, (i) =>
    api(cluster.node(i % 2), 'POST', '/v1/routes', { name: `race ${i}`, page_a: PAGE_A, page_b: PAGE_B }),
  );
  const created = answers.filter((r) => r.status === 201);
  const refused = answers.filter((r) => r.status === 403);
  expect(created).toHaveLength(ALLOWED);
  expect(refused).toHaveLength(ATTEMPTS - ALLOWED);
  for (const r of refused) expect(r.json).toMatchObject({ code: 'quota_exceeded' });
  expect(new Set(created.map((r) => r.json.code)).size).toBe(ALLOWED);
  const [account] = await cluster.pg.query('SELECT routes_created, quota FROM accounts WHERE id = $1', [boot.account_id]);
  expect(account).toEqual({ routes_created: ALLOWED, quota: ALLOWED });
  // Both nodes list the same routes.
  for (const n of [0, 1]) expect((await api(cluster.node(n), 'GET', '/v1/routes?limit=100')).json.pagination.total).toBe(ALLOWED);
});
