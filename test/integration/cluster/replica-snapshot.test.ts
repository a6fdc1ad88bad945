// A node further behind than the change log keeps (here: the log emptied
// while it was stopped, as the trim does after 100,000 changes) replaces its
// replica with a snapshot when it starts: routes created and updated while
// it was away redirect there, a route deleted meanwhile answers 404 (its
// code stays taken), and a key revoked meanwhile is refused.
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_B, RedirectClient, updateRoute } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('a node behind the kept log takes a snapshot and serves what changed while it was away', async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const session = await consoleSession(cluster.nodes[0], boot.admin_email, boot.admin_password);
  const made = await session.call('POST', '/keys', { name: 'to revoke' });
  const token = made.json.api_key as string;
  const deleted = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const updated = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const b = cluster.nodes[1];
  await expect.poll(async () => (await call(b.ports[0], b.ca, 'GET', '/v1/account', token)).status, { timeout: 1000 }).toBe(200);
  await expect.poll(async () => (await api(cluster.node(1), 'GET', `/v1/routes/${deleted.id}`)).status, { timeout: 1000 }).toBe(200);
  expect(await b.stop()).toBe(0);

  expect((await api(cluster.node(0), 'DELETE', `/v1/routes/${deleted.id}`)).status).toBe(204);
  await updateRoute(cluster.node(0), updated.id, { split_ratio: 0 });
  const added = await createRoute(cluster.node(0), { intercept_level: 'off' });
  expect((await session.call('DELETE', `/keys/${made.json.id}`)).status).toBe(200);
  // Nothing of the log is left: only a snapshot can bring node 1 up to date.
  await cluster.pg.query('DELETE FROM changes');

  const restarted = await cluster.restart(1);
  expect(restarted.logs().filter((l) => l.event === 'replica_snapshot')).toHaveLength(1);
  const client = new RedirectClient(cluster.node(1));
  try {
    expect((await client.visit(deleted.code)).status).toBe(404);
    const v = await client.visit(updated.code);
    expect(v.status).toBe(302);
    expect(v.location).toBe(PAGE_B);
    expect((await client.visit(added.code)).status).toBe(302);
  } finally {
    client.close();
  }
  expect((await call(restarted.ports[0], restarted.ca, 'GET', '/v1/account', token)).status).toBe(401);
  expect((await api(cluster.node(1), 'GET', '/v1/routes')).json.pagination.total).toBe(2);
  const [{ head }] = await cluster.pg.query<{ head: number }>('SELECT seq::int AS head FROM change_head');
  const [{ applied }] = await cluster.pg.query<{ applied: number }>("SELECT applied_seq::int AS applied FROM nodes WHERE name = 'node-1'");
  expect(applied).toBe(head);
});
