// The console's sign-in limits hold across two nodes sharing one Redis:
//   - per email at one address (5): wrong passwords alternating between the
//     nodes are checked five times, then refused on both, even with the right
//     password; the owner at another address still gets in;
//   - per email from anywhere: after 5 failures on one node, from five
//     addresses, a sign-in for that email on the other node is slowed by
//     EMAIL_DELAY_MS (a delay, not a wall: it succeeds);
//   - per address (20): racing sign-ins for many emails from one address over
//     both nodes are checked at most 20 times.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EMAIL_DELAY_MS } from '../../../src/console/login.js';
import { tally } from '../../helpers/attack.js';
import { runCliJson } from '../../helpers/cli.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { nodeMetric } from '../../helpers/cluster-nodes.js';
import { signInRequest } from '../../helpers/console-session.js';
import type { TestServer } from '../../helpers/server.js';

/** Signs in (from an address no test uses) until the user has reached the node's replica. */
async function untilSignedIn(node: TestServer, email: string): Promise<void> {
  for (const until = Date.now() + 5000; ; ) {
    if ((await signInRequest(node, email, PASSWORD, { localAddress: '127.0.11.1' })).status === 200) return;
    if (Date.now() > until) throw new Error(`${email} cannot sign in on the second node`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let cluster: TestCluster;
let nodes: TestServer[] = [];
const PASSWORD = 'the-right-one';
beforeAll(async () => {
  cluster = await startCluster({ nodes: 2, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });
  nodes = cluster.nodes;
  // The users, written through PostgreSQL by the CLI in cluster mode; both nodes serve them once replicated.
  for (const email of ['pair@x.y', 'spread@x.y']) {
    await runCliJson(['user', 'create', '--email', email, '--password', PASSWORD, '--account', String(nodes[0].accountId)], nodes[0].dataDir, cluster.env(0));
  }
  for (const email of ['pair@x.y', 'spread@x.y']) await untilSignedIn(nodes[1], email);
});
afterAll(async () => {
  await cluster?.close();
});

it('checks 5 wrong passwords for one email at one address across both nodes, then refuses there', async () => {
  const localAddress = '127.0.9.1';
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await signInRequest(nodes[i % 2], 'pair@x.y', `wrong-${i}`, { localAddress })).status);
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  for (const node of nodes) {
    const refused = await signInRequest(node, 'pair@x.y', PASSWORD, { localAddress });
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('rate_limited');
  }
  const owner = await signInRequest(nodes[1], 'pair@x.y', PASSWORD, { localAddress: '127.0.9.2' });
  expect(owner.status).toBe(200);
});

it('slows sign-ins for an email on one node after 5 failures on the other', async () => {
  for (let i = 0; i < 5; i++) {
    expect((await signInRequest(nodes[0], 'spread@x.y', `wrong-${i}`, { localAddress: `127.0.10.${i + 1}` })).status).toBe(401);
  }
  const started = Date.now();
  const owner = await signInRequest(nodes[1], 'spread@x.y', PASSWORD, { localAddress: '127.0.10.100' });
  expect(owner.status).toBe(200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(EMAIL_DELAY_MS - 100);
});

it('checks at most 20 racing sign-ins from one address across both nodes', async () => {
  const localAddress = '127.0.11.1';
  const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => signInRequest(nodes[i % 2], `nobody${i}@x.y`, 'whatever', { localAddress })));
  const seen = tally(answers.map((a) => a.status));
  expect(Object.keys(seen).every((s) => s === '401' || s === '429'), JSON.stringify(seen)).toBe(true);
  expect(seen[401], JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
  expect(seen[401], JSON.stringify(seen)).toBeLessThanOrEqual(20);
  for (const node of nodes) expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(0);
});
