// Cluster mode, two nodes: `user delete` through PostgreSQL (from node B's
// data directory) removes the login from node A's replica too. A's session
// of the user ends within a second, A refuses the password, and A's admin
// pages stop listing the login within a second. A replica that could only
// put users stored the deletion as an empty record, and A's account list
// then failed (500).
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession, type ConsoleSession, createConsoleUser, signInRequest } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const EMAIL = 'max@example.com';

/** Every console login, as an admin's page on that node lists them. */
async function logins(admin: ConsoleSession): Promise<string[]> {
  const r = await admin.call('GET', '/accounts');
  expect(r.status, r.body).toBe(200);
  return (r.json.data as { users: { email: string }[] }[]).flatMap((a) => a.users.map((u) => u.email));
}

it.skipIf(cluster.skip)('removes the user from the other node\'s replica', async () => {
  const [a, b] = cluster.nodes;
  await createConsoleUser(a!, EMAIL, 'a-long-password', cluster.env(0));
  const onA = await consoleSession(a!, EMAIL, 'a-long-password', { waitMs: 5000 });
  const boot = readBootstrap(a!.dataDir);
  const admin = await consoleSession(a!, boot.admin_email, boot.admin_password);
  expect(await logins(admin)).toContain(EMAIL);

  expect(await runCliJson(['user', 'delete', '--email', EMAIL], b!.dataDir, cluster.env(1))).toEqual({ email: EMAIL, account_id: a!.accountId, sessions_ended: 1 });
  const gone = await waitUntil(() => onA.call('GET', '/session'), (r) => r.status === 401, 1000, 10);
  expect(gone.ms).toBeLessThan(1000);
  const unlisted = await waitUntil(() => logins(admin), (emails) => !emails.includes(EMAIL), 1000, 10);
  expect(unlisted.ms).toBeLessThan(1000);
  expect((await signInRequest(a!, EMAIL, 'a-long-password')).status).toBe(401);
  expect((await signInRequest(b!, EMAIL, 'a-long-password')).status).toBe(401);
}, 60_000);
