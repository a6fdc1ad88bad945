// After cluster import, the first node started on the
// single node's own data directory (docs/cluster.md step 4 asks only for "its
// own data directory") and a second node on a new one must agree on the
// click-id secret: a click id issued by one node converts on the other.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, visitorId } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const stores = useClusterStores();
let single: TestServer;
let b: TestServer | null = null;
const bDir = tempDataDir();
beforeAll(async () => {
  if (!stores.skip) single = stores.track(await startServer({ env: NO_RATE_LIMIT }));
});
afterAll(async () => {
  await b?.close();
  rmSync(bDir, { recursive: true, force: true });
});

it.skipIf(stores.skip)('click ids issued on one node convert on the other', async () => {
  const route = (await api(single, 'POST', '/v1/routes', {
    name: 'exp', variants: [{ url: 'https://a.example.com/', weight: 1 }, { url: 'https://b.example.com/', weight: 1 }], append_click_id: true, intercept_level: 'off',
  })).json;
  expect(await single.stop()).toBe(0);
  const env = stores.env();
  expect((await runCli(['cluster', 'import', '--data-dir', single.dataDir], bDir, env)).code).toBe(0);
  const a = stores.track(await startServer({ dataDir: single.dataDir, env: { ...NO_RATE_LIMIT, ...env, SPLITGUARD_NODE_NAME: 'a' } }));
  b = await startServer({ dataDir: bDir, env: { ...NO_RATE_LIMIT, ...env, SPLITGUARD_NODE_NAME: 'b' } });
  const onA = { ports: a.ports, ca: a.ca, apiKey: single.apiKey };
  const onB = { ports: b.ports, ca: b.ca, apiKey: single.apiKey };
  const ca = new RedirectClient(onA);
  const cb = new RedirectClient(onB);
  const fromA = /sg_cid=([A-Za-z0-9_-]+)/.exec((await ca.visit(route.code, { visitor: visitorId() })).location!)![1];
  const fromB = /sg_cid=([A-Za-z0-9_-]+)/.exec((await cb.visit(route.code, { visitor: visitorId() })).location!)![1];
  ca.close();
  cb.close();
  const onOther = await api(onB, 'POST', '/v1/conversions', { click_id: fromA, goal: 'buy' });
  const onOther2 = await api(onA, 'POST', '/v1/conversions', { click_id: fromB, goal: 'buy' });
  expect.soft(onOther.status, `A's click id converted on B: ${onOther.body}`).toBe(202);
  expect.soft(onOther2.status, `B's click id converted on A: ${onOther2.body}`).toBe(202);
});
