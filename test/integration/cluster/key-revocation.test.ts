// Cluster mode, two nodes: an API key made through node A's console works on
// node B within a second, and once revoked through A it is refused on B
// within a second (B has used it, so B's key memo held it).
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('a key revoked on node A is refused on node B within 1 s', async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const session = await consoleSession(cluster.nodes[0], boot.admin_email, boot.admin_password);
  const b = cluster.nodes[1];
  for (let round = 0; round < 3; round++) {
    const made = await session.call('POST', '/keys', { name: `round ${round}` });
    expect(made.status, made.body).toBe(201);
    const token = made.json.api_key as string;

    const works = await waitUntil(() => call(b.ports[0], b.ca, 'GET', '/v1/account', token), (r) => r.status === 200, 1000, 10);
    expect(works.ms).toBeLessThan(1000);

    expect((await session.call('DELETE', `/keys/${made.json.id}`)).status).toBe(200);
    const refused = await waitUntil(() => call(b.ports[0], b.ca, 'GET', '/v1/account', token), (r) => r.status === 401, 1000, 10);
    expect(refused.ms).toBeLessThan(1000);
    expect(refused.value.json).toMatchObject({ code: 'unauthorized' });
    // And on A at once (read-your-writes).
    expect((await call(cluster.nodes[0].ports[0], cluster.nodes[0].ca, 'GET', '/v1/account', token)).status).toBe(401);
  }
});
