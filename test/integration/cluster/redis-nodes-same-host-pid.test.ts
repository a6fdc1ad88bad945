// Two nodes on one host, each the first process of its own PID namespace (as
// `node` is PID 1 in containers sharing the host's network and name): same
// host name, same pid. Each still counts as its own node in Redis's live-node
// set, and only once however many server threads it runs: while Redis is
// away a node's share of a limit is the limit divided by that count, so two
// counted as one would each allow the whole limit.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { startCluster } from '../../helpers/cluster.js';
import { untilMetric } from '../../helpers/cluster-nodes.js';
import { postgresBin } from '../../helpers/postgres.js';
import { redisInstalled } from '../../helpers/redis.js';
import type { TestServer } from '../../helpers/server.js';

const UNSHARE = ['unshare', '--pid', '--fork', '--kill-child=SIGTERM'];
const skip =
  postgresBin() === null ? 'PostgreSQL is not installed'
  : !redisInstalled() ? 'redis-server is not installed'
  : spawnSync(UNSHARE[0], [...UNSHARE.slice(1), 'true']).status !== 0 ? 'no PID namespaces here (unshare --pid)'
  : null;

/** The server itself, unshare's only child: its pid on this host. */
function serverPid(node: TestServer): number {
  const pid = node.process.pid!;
  return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim());
}

/** A process's pid in its own PID namespace (the last of NSpid). */
const pidInside = (pid: number) => Number(/^NSpid:.*\s(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/**
 * Stops the server inside the namespace. unshare passes no signal on (the
 * test helpers' SIGTERM would wait 20 s for their SIGKILL): the server is
 * sent SIGTERM, and unshare exits with it.
 */
async function stopInside(node: TestServer): Promise<void> {
  if (node.process.exitCode === null && node.process.signalCode === null) process.kill(serverPid(node), 'SIGTERM');
  await node.exited;
}

it.skipIf(skip)('counts two nodes with the same host name and pid as two, each once', async () => {
  const cluster = await startCluster({
    nodes: 2,
    nginx: false,
    threads: 2,
    wrapper: UNSHARE,
  });
  try {
    // The premise: the host name is this host's, and both servers are PID 1.
    expect(cluster.nodes.map((n) => pidInside(serverPid(n)))).toEqual([1, 1]);
    // Each node's heartbeat counts both (each heartbeats on connecting and every 5 s).
    await untilMetric(cluster.nodes, 'splitguard_redis_nodes', (v) => v === 2);
    // One member per process, named by its node.
    const redis = new Redis(cluster.redis.url);
    const members = await redis.zrange('sg:nodes', 0, -1).finally(() => redis.disconnect());
    expect(members.sort()).toEqual([expect.stringMatching(/^node-0:[0-9a-f]{16}$/), expect.stringMatching(/^node-1:[0-9a-f]{16}$/)]);

    // The share a count gives while Redis is away is redis-outage.test.ts's.
  } finally {
    await Promise.all(cluster.nodes.map(stopInside));
    await cluster.close();
  }
}, 90_000);
