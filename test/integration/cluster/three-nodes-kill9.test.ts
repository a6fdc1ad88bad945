// Three nodes behind a real nginx: routes created through nginx are live on
// every node within a second; a node killed with SIGKILL while it takes
// writes loses none it acknowledged (PostgreSQL holds them, the other nodes
// serve them), and started again on its data directory it catches up with
// what was written while it was down. `splitguard cluster status` lists
// the three nodes, live, caught up and connected to Redis.
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useCluster } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, RedirectClient, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 3, env: NO_RATE_LIMIT });

async function liveOn(i: number, code: string): Promise<number> {
  const client = new RedirectClient(cluster.node(i));
  try {
    return (await waitUntil(() => client.visit(code), (v) => v.status === 302, 1000, 10)).ms;
  } finally {
    client.close();
  }
}

it.skipIf(cluster.skip)('propagates through nginx, and a node killed mid-write loses no acknowledged write', async () => {
  for (let n = 0; n < 6; n++) {
    const route = await createRoute(cluster.lb, { intercept_level: 'off' });
    for (let i = 0; i < 3; i++) expect(await liveOn(i, route.code)).toBeLessThan(1000);
  }

  // Writes straight to node 2, several in flight, until it is killed.
  const acknowledged: { id: number; code: string }[] = [];
  let writing = true;
  const writers = Array.from({ length: 4 }, async () => {
    while (writing) {
      const r = await api(cluster.node(2), 'POST', '/v1/routes', { name: 'before the kill', page_a: PAGE_A, page_b: PAGE_B }).catch(() => null);
      if (r === null) return;
      if (r.status === 201) acknowledged.push({ id: r.json.id, code: r.json.code });
    }
  });
  await waitUntil(async () => acknowledged.length, (n) => n >= 20, 10_000, 5);
  await cluster.nodes[2].stop('SIGKILL');
  writing = false;
  await Promise.all(writers);

  const stored = new Set((await cluster.pg.query<{ code: string }>('SELECT code FROM routes')).map((r) => r.code));
  for (const { code } of acknowledged) expect(stored.has(code), code).toBe(true);
  for (const { code } of acknowledged.slice(-3)) {
    expect(await liveOn(0, code)).toBeLessThan(1000);
    expect(await liveOn(1, code)).toBeLessThan(1000);
  }

  // Written while node 2 is down; it catches up when started again.
  const during = await createRoute(cluster.node(0), { intercept_level: 'off' });
  await cluster.restart(2);
  expect(await liveOn(2, during.code)).toBeLessThan(1000);
  const onRestarted = new RedirectClient(cluster.node(2));
  try {
    for (const { code } of acknowledged) expect((await onRestarted.visit(code)).status).toBe(302);
  } finally {
    onRestarted.close();
  }

  const status = await waitUntil(async () => {
    const r = await runCli(['cluster', 'status'], cluster.nodes[0].dataDir, { SPLITGUARD_DATABASE_URL: cluster.pg.url, SPLITGUARD_REDIS_URL: cluster.redis.url });
    return JSON.parse(r.stdout) as { head_seq: number; nodes: { name: string; live: boolean; behind_changes: number; ready: boolean; redis: string }[] };
  }, (s) => s.nodes.length === 3 && s.nodes.every((n) => n.live && n.ready && n.behind_changes === 0 && n.redis === 'connected'), 10_000, 500);
  expect(status.value.nodes.map((n) => n.name)).toEqual(['node-0', 'node-1', 'node-2']);
}, 120_000);
