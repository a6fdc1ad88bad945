// Cluster mode: revoked keys removed for good on one node (an account keeps
// its newest 100 revoked keys) are removed from the other node's replica
// too: its list shows the same 100, and a removed key's token is refused.
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)("removes revoked keys past the newest 100 from the other node's replica", async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const [a, b] = await Promise.all([0, 1].map((i) => consoleSession(cluster.nodes[i], boot.admin_email, boot.admin_password)));
  const made: { id: string; token: string }[] = [];
  for (let i = 0; i < 103; i++) {
    const r = await a.call('POST', '/keys', { name: `churn ${i}` });
    expect(r.status, r.body).toBe(201);
    made.push({ id: r.json.id, token: r.json.api_key });
    expect((await a.call('DELETE', `/keys/${r.json.id}`)).status).toBe(200);
  }
  const revokedOn = async (s: typeof a) => ((await s.call('GET', '/keys')).json.data as { id: string; revoked_at: string | null }[]).filter((k) => k.revoked_at !== null);
  expect(await revokedOn(a)).toHaveLength(100);
  const { value } = await waitUntil(() => revokedOn(b), (list) => list.length === 100 && !list.some((k) => k.id === made[2].id), 2000, 20);
  expect(value.some((k) => k.id === made[0].id)).toBe(false);
  const node = cluster.nodes[1];
  expect((await call(node.ports[0], node.ca, 'GET', '/v1/account', made[0].token)).status).toBe(401);
});
