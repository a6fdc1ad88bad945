// A node name belongs to one live process (store/pg/node.ts): two nodes
// sharing one would share a click writer, whose batches pass for each
// other's repeats. A second process given a live node's name on another data
// directory is refused before it serves, even one holding a copy of the
// holder's record of itself (a cloned directory); the holder's own data
// directory takes its name back at once after kill -9 (its previous process
// is known gone: the data directory's lock is the new one's); another
// directory takes it once the holder's heartbeat is NODE_STALE_S old, or at
// once after the holder stopped; and a running node whose name another
// process took meanwhile stops with exit code 1.
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { NODE_STALE_S } from '../../../src/store/pg/node.js';
import { useCluster } from '../../helpers/cluster.js';
import { createRoute, waitUntil } from '../../helpers/routes.js';
import { serveToExit, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 1, nginx: false });
const elsewhere = tempDataDir();
const others: TestServer[] = [];
afterAll(async () => {
  for (const o of others) await o.close();
  rmSync(elsewhere, { recursive: true, force: true });
});

const holder = async () => (await cluster.pg.query<{ instance: string | null }>("SELECT instance FROM nodes WHERE name = 'node-0'"))[0].instance;
const INSTANCE = /^node-0:[0-9a-f]{16}$/;

it.skipIf(cluster.skip)('refuses a second process with a live node\'s name, and lets the name go only with its holder', async () => {
  const first = await holder();
  expect(first).toMatch(INSTANCE);

  // The holder's record of itself, as a copy of its data directory would carry it.
  copyFileSync(path.join(cluster.nodes[0].dataDir, 'node-instance'), path.join(elsewhere, 'node-instance'));
  const refused = serveToExit(elsewhere, { ...cluster.env(0), PORT: '0' }, [], 60_000);
  expect(refused.signal, refused.stderr).toBeNull();
  expect(refused.status, refused.stderr).toBe(1);
  expect(refused.stderr).toMatch(
    new RegExp(`splitguard: the node name node-0 \\(its last heartbeat \\d+ s ago; a node counts as stopped ${NODE_STALE_S} s after its last\\) is held by another node: give every node a name of its own \\(SPLITGUARD_NODE_NAME\\)`),
  );
  expect(await holder()).toBe(first);
  expect((await createRoute(cluster.node(0))).code).toBeTruthy();

  // kill -9, then the same data directory at once: no wait for the heartbeat to age.
  await cluster.nodes[0].stop('SIGKILL');
  const restarted = await cluster.restart(0);
  const second = await holder();
  expect(second).not.toBe(first);
  expect(second).toMatch(INSTANCE);

  // Its heartbeat aged past NODE_STALE_S (as after a kill -9 that long ago): another directory takes the name.
  await restarted.stop('SIGKILL');
  await cluster.pg.query(`UPDATE nodes SET last_seen = now() - interval '${NODE_STALE_S + 1} seconds' WHERE name = 'node-0'`);
  const other = await startServer({ env: { ...cluster.env(0), PORT: '0' }, dataDir: elsewhere });
  others.push(other);
  await waitUntil(holder, (instance) => instance !== second, 5000, 50);
  expect(await holder()).toMatch(INSTANCE);

  // A stop lets the name go at once.
  expect(await other.stop()).toBe(0);
  expect(await holder()).toBeNull();
});

it.skipIf(cluster.skip)('stops a running node whose name another live process took', async () => {
  const node = await startServer({ env: { ...cluster.env(0), PORT: '0' }, dataDir: elsewhere });
  others.push(node);
  await waitUntil(holder, (instance) => instance !== null, 5000, 50);
  // Another process took the name while this one was away from PostgreSQL.
  await cluster.pg.query("UPDATE nodes SET instance = 'node-0:00000000000000ff', last_seen = now() + interval '1 hour' WHERE name = 'node-0'");
  expect(await node.exited).toBe(1);
  expect(node.logs().some((l) => l.event === 'node_name_in_use' && l.level === 'error')).toBe(true);
  expect(await holder()).toBe('node-0:00000000000000ff');
});
