// Three nodes behind a real nginx, the contract's limit of 60 requests a
// minute per account: one account hammering the cluster through nginx (200
// requests at once, each on its own connection, spread over the nodes by
// nginx) gets 60 answers 200 in all — Redis counts for the cluster — and
// every node answered some of them.
import { expect, it } from 'vitest';
import { tally } from '../../helpers/attack.js';
import { useCluster } from '../../helpers/cluster.js';
import { metric } from '../../helpers/connections.js';
import { api } from '../../helpers/routes.js';

// The contract's limit (the test default raises it), and room for 200 TLS handshakes before a node decides alone.
const cluster = useCluster({ nodes: 3, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });

const OK = 'splitguard_api_responses_total{status="200"}';

it.skipIf(cluster.skip)('holds one account to 60 requests a minute across three nodes behind nginx', async () => {
  const before = await Promise.all(cluster.nodes.map((n) => metric(n, OK)));
  const answers = await Promise.all(Array.from({ length: 200 }, () => api(cluster.lb, 'GET', '/v1/account')));
  expect(tally(answers.map((a) => a.status))).toEqual({ 200: 60, 429: 140 });
  for (const a of answers.filter((x) => x.status === 429)) expect(a.json).toMatchObject({ code: 'rate_limited' });
  const after = await Promise.all(cluster.nodes.map((n) => metric(n, OK)));
  const served = after.map((v, i) => v - before[i]);
  expect(served.reduce((s, n) => s + n, 0)).toBe(60);
  expect(served.filter((n) => n > 0).length, `200s per node: ${served.join(', ')}`).toBe(3);
});
