// Cluster import sets each account's count of stored conversions
// (account_conversions, which SPLITGUARD_CONVERSION_QUOTA bounds) from the
// conversions it imports: a node with a quota of 5 takes two more new
// conversions after an import of 3, then refuses. Without the count, the
// imported account would start from 0 and store 5 more.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { clickIdRoute, mintClickIds } from '../../helpers/conversion-quota.js';
import { api, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const QUOTA = 5;
const stores = useClusterStores();
let single: TestServer;
const nodeDir = tempDataDir();
beforeAll(async () => {
  if (!stores.skip) single = stores.track(await startServer({ env: NO_RATE_LIMIT }));
});
afterAll(() => rmSync(nodeDir, { recursive: true, force: true }));

it.skipIf(stores.skip)("counts the imported conversions against the account's quota", async () => {
  const route = await clickIdRoute(single);
  const client = new RedirectClient(single);
  const [id] = await mintClickIds(client, route.code, 1);
  client.close();
  for (let g = 0; g < 3; g++) expect((await api(single, 'POST', '/v1/conversions', { click_id: id, goal: `g${g}` })).status).toBe(202);
  expect(await single.stop()).toBe(0);

  const env = stores.env();
  const imported = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(imported.code, imported.stderr).toBe(0);
  // A second run imports nothing new and leaves the count as it is.
  expect((await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env)).code).toBe(0);
  const node = stores.track(await startServer({ dataDir: nodeDir, env: { ...NO_RATE_LIMIT, ...env, SPLITGUARD_NODE_NAME: 'imported', SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } }));
  const onNode = { ports: node.ports, ca: node.ca, apiKey: single.apiKey };

  const answers = [];
  for (let g = 3; g < 7; g++) answers.push((await api(onNode, 'POST', '/v1/conversions', { click_id: id, goal: `g${g}` })).status);
  expect(answers).toEqual([202, 202, 403, 403]);
  expect((await api(onNode, 'POST', '/v1/conversions', { click_id: id, goal: 'g0' })).json).toMatchObject({ duplicate: true });
});
