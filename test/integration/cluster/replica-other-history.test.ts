// Cluster mode: a node whose replica belongs to another history of the
// cluster's database takes a snapshot instead of applying the changes after
// its sequence on top. Here node B is away while PostgreSQL is restored from
// a dump taken before a route and an API key were made, and the cluster then
// writes past B's old sequence: B must drop that route and key (they are in
// no database any more) and serve every route written since. Before, B
// applied only the changes numbered after its own, kept the vanished key
// valid and the vanished route live, never served some new routes, and its
// /readyz said ready.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { postgresBin } from '../../helpers/postgres.js';
import { createRoute, NO_RATE_LIMIT, RedirectClient, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
/** pg_dump or psql of the test's PostgreSQL, run as its owner. */
const pgTool = (tool: string, args: string[], input?: string) =>
  execFileSync('runuser', ['-u', 'postgres', '--', path.join(postgresBin()!, tool), ...args], { input, encoding: 'utf8', maxBuffer: 1e8 });
const head = async () => Number((await cluster.pg.query<{ seq: string }>('SELECT seq FROM change_head'))[0].seq);

it.skipIf(cluster.skip)('takes a snapshot when PostgreSQL was restored from a dump and written past its sequence', async () => {
  await createRoute(cluster.node(0), { intercept_level: 'off' });
  const dump = pgTool('pg_dump', ['--clean', '--if-exists', '-d', cluster.pg.url]);
  const dumpedAt = await head();

  // After the dump: a route and a key, which B applies.
  const late = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const session = await consoleSession(cluster.nodes[0], boot.admin_email, boot.admin_password);
  const key = (await session.call('POST', '/keys', { name: 'after the dump' })).json.api_key as string;
  const b0 = cluster.nodes[1];
  await waitUntil(() => call(b0.ports[0], b0.ca, 'GET', '/v1/account', key), (r) => r.status === 200, 5000);
  const bSeq = await head();
  await b0.stop();

  pgTool('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', cluster.pg.url], dump);
  expect(await head()).toBe(dumpedAt);
  // The cluster writes on, past B's old sequence.
  const fresh = [];
  while ((await head()) <= bSeq + 2) fresh.push(await createRoute(cluster.node(0), { intercept_level: 'off' }));

  const b = await cluster.restart(1);
  const visits = new RedirectClient({ ...b, apiKey: '' });
  try {
    for (const r of fresh) await waitUntil(() => visits.visit(r.code), (v) => v.status === 302, 5000);
    expect((await visits.visit(late.code)).status, 'a route the restored database does not have').toBe(404);
  } finally {
    visits.close();
  }
  expect((await call(b.ports[0], b.ca, 'GET', '/v1/account', key)).status, 'a key the restored database does not have').toBe(401);
  expect(b.logs().some((l) => l.event === 'replica_history_differs')).toBe(true);
});
