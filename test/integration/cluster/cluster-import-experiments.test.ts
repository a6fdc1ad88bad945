// Cluster import carries a route's experiment data
// (per-variant clicks, unique-visitor sketches, conversions and their days)
// and the click-id secret, so that the experiment report reads the same on a
// cluster node and click ids issued by the single node still convert.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, visitorId, waitUntil } from '../../helpers/routes.js';
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

const url = (k: string) => `https://${k}.example.com/landing`;

it.skipIf(stores.skip)('carries experiment figures and the click-id secret into the cluster', async () => {
  const route = (await api(single, 'POST', '/v1/routes', {
    name: 'exp', variants: [{ url: url('a'), weight: 1 }, { url: url('b'), weight: 1 }, { url: url('c'), weight: 1 }],
    append_click_id: true, intercept_level: 'off',
  })).json;
  const client = new RedirectClient(single);
  const clickIds: string[] = [];
  for (let i = 0; i < 30; i++) {
    const v = await client.visit(route.code, { visitor: visitorId() });
    expect(v.status).toBe(302);
    clickIds.push(/sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1]);
  }
  client.close();
  for (const id of clickIds.slice(0, 5)) expect((await api(single, 'POST', '/v1/conversions', { click_id: id, goal: 'signup', value: 10 })).status).toBe(202);
  const before = (await waitUntil(() => api(single, 'GET', `/v1/routes/${route.id}`), (r) => r.json.experiment.variants.reduce((n: number, v: { clicks: number }) => n + v.clicks, 0) === 30, 5000)).value.json.experiment;
  expect(await single.stop()).toBe(0);

  const env = stores.env();
  const imported = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(imported.code, imported.stderr).toBe(0);
  node = await startServer({ dataDir: nodeDir, env: { ...NO_RATE_LIMIT, ...env, SPLITGUARD_NODE_NAME: 'imported' } });
  const onNode = { ports: node.ports, ca: node.ca, apiKey: single.apiKey };

  const after = (await api(onNode, 'GET', `/v1/routes/${route.id}`)).json.experiment;
  expect.soft(after.goals).toEqual(before.goals);
  expect.soft(after.variants).toEqual(before.variants);
  expect.soft(after.lifetime).toEqual(before.lifetime);
  // A click id the single node issued: already converted → duplicate; not yet → counted.
  const again = await api(onNode, 'POST', '/v1/conversions', { click_id: clickIds[0], goal: 'signup' });
  expect.soft(again.status, JSON.stringify(again.json)).toBe(200);
  expect.soft(again.json.duplicate).toBe(true);
  const fresh = await api(onNode, 'POST', '/v1/conversions', { click_id: clickIds[10], goal: 'signup' });
  expect(fresh.status, JSON.stringify(fresh.json)).toBe(202);
});
