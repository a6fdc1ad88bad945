// Cluster mode, two nodes: Sign out everywhere on node B ends the user's
// sessions begun on node A too (one PostgreSQL transaction; A's replica sees
// the deletions within a second), and no other user's; `user sign-out`
// through PostgreSQL from the CLI does the same.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession, createConsoleUser } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap, type TestServer } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const EMAIL = 'fay@example.com';
const PASSWORD = 'a-long-password';

/** Signs in on `node` once the user has reached its replica. */
const signedIn = (node: TestServer) => consoleSession(node, EMAIL, PASSWORD, { waitMs: 5000 });

it.skipIf(cluster.skip)('ends the user\'s sessions on both nodes', async () => {
  const [a, b] = cluster.nodes;
  await createConsoleUser(a!, EMAIL, PASSWORD, cluster.env(0));
  const onA = [await signedIn(a!), await signedIn(a!)];
  const onB = await signedIn(b!);
  const boot = readBootstrap(a!.dataDir);
  const admin = await consoleSession(a!, boot.admin_email, boot.admin_password);

  const out = await onB.call('POST', '/session/logout-everywhere');
  expect(out.status, out.body).toBe(200);
  expect(out.json).toEqual({ ended: 3 });
  for (const s of onA) {
    const gone = await waitUntil(() => s.call('GET', '/session'), (r) => r.status === 401, 1000, 10);
    expect(gone.ms).toBeLessThan(1000);
  }
  expect((await admin.call('GET', '/session')).status).toBe(200);

  // The CLI, through PostgreSQL: a session begun on A ends.
  const later = await signedIn(a!);
  expect(await runCliJson(['user', 'sign-out', '--email', EMAIL], b!.dataDir, cluster.env(1))).toEqual({ email: EMAIL, sessions_ended: 1 });
  const gone = await waitUntil(() => later.call('GET', '/session'), (r) => r.status === 401, 1000, 10);
  expect(gone.ms).toBeLessThan(1000);
}, 60_000);
