// splitguard cluster import carries the console's sessions: a user signed in
// on the single node is still signed in on a cluster node started on the
// imported database (the cookie and its CSRF token both work there), and a
// second import counts the session as skipped.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { readBootstrap, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const stores = useClusterStores();
let single: TestServer;
let node: TestServer | null = null;
const nodeDir = tempDataDir();
beforeAll(async () => {
  if (!stores.skip) single = stores.track(await startServer());
});
afterAll(async () => {
  await node?.close();
  rmSync(nodeDir, { recursive: true, force: true });
});

it.skipIf(stores.skip)('a console session signed in on the single node works on a cluster node after the import', async () => {
  const boot = readBootstrap(single.dataDir);
  const session = await consoleSession(single, boot.admin_email, boot.admin_password);
  expect((await session.call('GET', '/keys')).status).toBe(200);
  expect(await single.stop()).toBe(0);

  const env = stores.env();
  const first = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(first.code, first.stderr).toBe(0);

  node = stores.track(await startServer({ dataDir: nodeDir, env: { ...env, SPLITGUARD_NODE_NAME: 'imported' } }));
  const onNode = (method: string, path: string, json?: unknown) =>
    request({ port: node!.ports[0], ca: node!.ca, method, path: `/console/api${path}`, json, headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf } });
  expect((await onNode('GET', '/keys')).status).toBe(200);
  // A change, which needs the session's CSRF token as well.
  const made = await onNode('POST', '/keys', { name: 'made after the move' });
  expect(made.status, made.body).toBe(201);
  // Without the cookie the same call is refused: the session, not the address, let it in.
  const anonymous = await request({ port: node.ports[0], ca: node.ca, method: 'GET', path: '/console/api/keys' });
  expect(anonymous.status).toBe(401);

  expect(JSON.parse(first.stdout).sessions).toEqual({ imported: 1, skipped: 0 });
  const again = await runCli(['cluster', 'import', '--data-dir', single.dataDir], nodeDir, env);
  expect(JSON.parse(again.stdout).sessions).toEqual({ imported: 0, skipped: 1 });
});
