// splitguard cluster import: a single node's data directory moves into an
// empty cluster database. The counts are printed as JSON; a second run
// imports nothing and counts everything as skipped. A node started on the
// cluster afterwards serves the imported routes, accepts the imported key,
// shows the imported clicks, keeps a deleted route's code dead, and does not
// bootstrap a second admin.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient, routeStats, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const stores = useClusterStores();
let single: TestServer;
let node: TestServer | null = null;
const nodeDir = tempDataDir();
beforeAll(async () => {
  if (!stores.skip) single = stores.track(await startServer({ env: NO_RATE_LIMIT }));
});
afterAll(async () => {
  await node?.close();
  rmSync(nodeDir, { recursive: true, force: true });
});

it.skipIf(stores.skip)('copies a data directory once, and a cluster node serves it', async () => {
  const kept = await createRoute(single, { intercept_level: 'off' });
  const other = await createRoute(single, { intercept_level: 'off' });
  const deleted = await createRoute(single, { intercept_level: 'off' });
  expect((await api(single, 'DELETE', `/v1/routes/${deleted.id}`)).status).toBe(204);
  const visits = new RedirectClient(single);
  for (let i = 0; i < 7; i++) expect((await visits.visit(kept.code)).status).toBe(302);
  visits.close();
  await waitUntil(() => routeStats(single, kept.id), (s) => s.clicks.total === 7, 3000);
  expect(await single.stop()).toBe(0);

  const env = stores.env();
  const first = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(first.code, first.stderr).toBe(0);
  const counts = JSON.parse(first.stdout);
  expect(counts).toMatchObject({
    data_dir: single.dataDir,
    accounts: { imported: 1, skipped: 0 },
    api_keys: { imported: 1, skipped: 0 },
    users: { imported: 1, skipped: 0 },
    route_codes: { imported: 3, skipped: 0 },
    routes: { imported: 2, skipped: 0 },
    route_days: { imported: 1, skipped: 0 },
  });
  const again = JSON.parse((await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env)).stdout);
  for (const table of ['accounts', 'api_keys', 'users', 'route_codes', 'routes', 'blacklist', 'route_days']) {
    expect(again[table], table).toEqual({ imported: 0, skipped: counts[table].imported + counts[table].skipped });
  }

  node = stores.track(await startServer({ dataDir: nodeDir, env: { ...NO_RATE_LIMIT, ...env, SPLITGUARD_NODE_NAME: 'imported' } }));
  expect(node.logs().some((l) => l.event === 'bootstrap')).toBe(false);
  const onNode = { ports: node.ports, ca: node.ca, apiKey: single.apiKey };
  const client = new RedirectClient(onNode);
  try {
    expect((await client.visit(kept.code)).status).toBe(302);
    expect((await client.visit(other.code)).status).toBe(302);
    expect((await client.visit(deleted.code)).status).toBe(404);
  } finally {
    client.close();
  }
  expect((await api(onNode, 'GET', '/v1/routes')).json.pagination.total).toBe(2);
  // The 7 imported clicks and the node's own visit (flushed within a second or so).
  await waitUntil(() => routeStats(onNode, kept.id), (s) => s.clicks.total === 8, 3000);
  // New ids continue after the imported ones; the deleted route's code is never given again.
  const fresh = await createRoute(onNode);
  expect(fresh.id).toBeGreaterThan(deleted.id);
  expect([kept.code, other.code, deleted.code]).not.toContain(fresh.code);
});
