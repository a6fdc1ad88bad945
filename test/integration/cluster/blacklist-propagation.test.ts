// Cluster mode, two nodes: an ASN blacklist edit made through node A is
// applied by node B's classifier within one second (contract §6 and §9):
// a custom entry added on A intercepts on B, and removed on A stops there.
// AS27989 (2.59.193.1) is on no built-in list and its name holds no keyword,
// so only the custom entry can intercept it.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const IP = '2.59.193.1';
const ASN = 27989;
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

const interceptedOnB = async () => (await api(cluster.node(1), 'GET', `/v1/ip/check?ip=${IP}&level=low`)).json.intercepted as boolean;

it.skipIf(cluster.skip)('a blacklist entry added or removed on node A is in force on node B within 1 s', async () => {
  expect(await interceptedOnB()).toBe(false);
  const added = await api(cluster.node(0), 'POST', '/v1/admin/blacklist', { asn: ASN, provider: 'Example bulk sender', category: 'hosting', note: 'cluster test' });
  expect(added.status, added.body).toBe(201);
  const on = await waitUntil(interceptedOnB, (v) => v, 1000, 10);
  expect(on.ms).toBeLessThan(1000);

  expect((await api(cluster.node(0), 'DELETE', `/v1/admin/blacklist/${ASN}`)).status).toBe(204);
  const off = await waitUntil(interceptedOnB, (v) => !v, 1000, 10);
  expect(off.ms).toBeLessThan(1000);
});
