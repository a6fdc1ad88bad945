// A node name belongs to one running process (store/pg/node.ts): two nodes
// sharing one would share a click writer, whose batches pass for each
// other's repeats. A second process given a live node's name on another data
// directory is refused before it serves; the holder's own data directory
// takes its name back at once after kill -9 (its previous process is known
// gone: the data directory's lock is the new one's); another directory takes
// it once the holder's heartbeat is NODE_STALE_S old, or at once after the
// holder stopped.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { NODE_STALE_S } from '../../../src/store/pg/node.js';
import { useCluster } from '../../helpers/cluster.js';
import { createRoute, waitUntil } from '../../helpers/routes.js';
import { serveToExit, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 1, nginx: false });
const elsewhere = tempDataDir();
let other: TestServer | null = null;
afterAll(async () => {
  await other?.close();
  rmSync(elsewhere, { recursive: true, force: true });
});

const holder = async () => (await cluster.pg.query<{ instance: string | null }>("SELECT instance FROM nodes WHERE name = 'node-0'"))[0].instance;

it.skipIf(cluster.skip)('refuses a second process with a live node\'s name, and lets the name go only with its holder', async () => {
  const first = await holder();
  expect(first).toMatch(/^node-0:[0-9a-f]{16}$/);

  const refused = serveToExit(elsewhere, { ...cluster.env(0), PORT: '0' });
  expect(refused.signal, refused.stderr).toBeNull();
  expect(refused.status, refused.stderr).toBe(1);
  expect(refused.stderr).toMatch(
    new RegExp(`splitguard: the node name node-0 \\(its last heartbeat \\d+ s ago; a node counts as stopped after ${NODE_STALE_S} s\\) is held by another running node: give every node a name of its own \\(SPLITGUARD_NODE_NAME\\)`),
  );
  expect(await holder()).toBe(first);
  expect((await createRoute(cluster.node(0))).code).toBeTruthy();

  // kill -9, then the same data directory at once: no wait for the heartbeat to age.
  await cluster.nodes[0].stop('SIGKILL');
  const restarted = await cluster.restart(0);
  const second = await holder();
  expect(second).not.toBe(first);
  expect(second).toMatch(/^node-0:[0-9a-f]{16}$/);

  // Its heartbeat aged past NODE_STALE_S (as after a kill -9 that long ago): another directory takes the name.
  await restarted.stop('SIGKILL');
  await cluster.pg.query(`UPDATE nodes SET last_seen = now() - interval '${NODE_STALE_S + 1} seconds' WHERE name = 'node-0'`);
  other = await startServer({ env: { ...cluster.env(0), PORT: '0' }, dataDir: elsewhere });
  await waitUntil(holder, (instance) => instance !== second, 5000, 50);
  expect(await holder()).toMatch(/^node-0:[0-9a-f]{16}$/);

  // A stop lets the name go at once.
  expect(await other.stop()).toBe(0);
  expect(await holder()).toBeNull();
}, 90_000);
