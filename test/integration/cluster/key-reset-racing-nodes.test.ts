// Cluster mode, two nodes: resets of one key sent at once through both
// nodes' consoles replace it by exactly one key (one 200, the others 400
// naming id); the new secret works on the other node within a second, and
// the old one is refused on both.
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('racing resets through both nodes make one new key', async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const sessions = await Promise.all([0, 1].map((i) => consoleSession(cluster.nodes[i], boot.admin_email, boot.admin_password)));
  const made = await sessions[0].call('POST', '/keys', { name: 'to reset' });
  expect(made.status, made.body).toBe(201);
  const old = made.json.api_key as string;
  // Node B knows the key before the race.
  await waitUntil(() => sessions[1].call('GET', '/keys'), (r) => r.json.data.some((k: { id: string }) => k.id === made.json.id), 1000, 10);

  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => sessions[i % 2].call('POST', `/keys/${made.json.id}/reset`)));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
  for (const a of answers.filter((x) => x.status === 400)) expect(a.json).toMatchObject({ code: 'invalid_parameter', field: 'id' });
  const fresh = answers.find((a) => a.status === 200)!.json.api_key as string;

  for (const node of cluster.nodes) {
    const works = await waitUntil(() => call(node.ports[0], node.ca, 'GET', '/v1/account', fresh), (r) => r.status === 200, 1000, 10);
    expect(works.value.status).toBe(200);
    expect((await call(node.ports[0], node.ca, 'GET', '/v1/account', old)).status).toBe(401);
  }
  const live = (await sessions[0].call('GET', '/keys')).json.data.filter((k: { name: string; revoked_at: string | null }) => k.name === 'to reset' && k.revoked_at === null);
  expect(live).toHaveLength(1);
});
