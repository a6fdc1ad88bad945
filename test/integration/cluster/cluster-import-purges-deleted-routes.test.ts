// Cluster import first finishes removing the data of routes deleted before a
// stop interrupted it (finding 97: a deleted route's data goes after the
// deletion, in bounded transactions, and a marker in the store says what is
// left): none of a deleted route's leftovers reaches PostgreSQL, while a
// live route's data does.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, routeStats, visitorId, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const stores = useClusterStores();
const nodeDir = tempDataDir();
afterAll(() => rmSync(nodeDir, { recursive: true, force: true }));

const GONE = 999_999;

it.skipIf(stores.skip)("carries a live route's data and none of a half-purged deleted route's", async () => {
  const single = stores.track(await startServer({ env: NO_RATE_LIMIT }));
  const route = (await api(single, 'POST', '/v1/routes', { name: 'live', page_a: 'https://a.example/', page_b: 'https://b.example/', intercept_level: 'off' })).json;
  const client = new RedirectClient(single);
  for (let i = 0; i < 5; i++) expect((await client.visit(route.code, { visitor: visitorId() })).status).toBe(302);
  client.close();
  await waitUntil(() => routeStats(single, route.id), (st) => st.clicks.total === 5, 5000);
  expect(await single.stop()).toBe(0);

  // As a stop in the middle of a purge leaves a store: the marker, and data under a route that is gone.
  const env = open({ path: path.join(single.dataDir, 'db'), maxDbs: 32 });
  await env.transaction(() => {
    env.openDB({ name: 'meta' }).put(`purge:route:${GONE}`, true);
    env.openDB({ name: 'route_stats' }).put([GONE, 20000], { clicks: 7 });
    env.openDB({ name: 'conversions' }).put([GONE, 'buy', '0123456789abcdef'], { variant: 0, day: 20000, at: 1, value: null });
  });
  await env.close();

  const imported = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, stores.env());
  expect(imported.code, imported.stderr).toBe(0);
  const db = new pg.Client({ connectionString: stores.env().SPLITGUARD_DATABASE_URL });
  await db.connect();
  try {
    const count = async (table: string, id: number) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE route_id = $1`, [id])).rows[0].n);
    expect(await count('route_days', route.id)).toBeGreaterThan(0);
    expect(await count('route_days', GONE)).toBe(0);
    expect(await count('conversions', GONE)).toBe(0);
  } finally {
    await db.end();
  }
});
