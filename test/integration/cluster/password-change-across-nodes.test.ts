// Cluster mode, two nodes: a password changed through node B's console (one
// PostgreSQL transaction with the user's sessions) ends the user's session on
// node A within a second, and node A then takes the new password and
// refuses the old one.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession, createConsoleUser, signInRequest } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const EMAIL = 'jay@example.com';

it.skipIf(cluster.skip)('ends the sessions on the other node, which then takes the new password', async () => {
  const [a, b] = cluster.nodes;
  await createConsoleUser(a!, EMAIL, 'the-old-password', cluster.env(0));
  const onA = await consoleSession(a!, EMAIL, 'the-old-password', { waitMs: 5000 });
  const onB = await consoleSession(b!, EMAIL, 'the-old-password', { waitMs: 5000 });

  const changed = await onB.call('POST', '/session/password', { current_password: 'the-old-password', new_password: 'a-brand-new-password' });
  expect(changed.status, changed.body).toBe(200);
  expect(changed.json.sessions_ended).toBe(2);
  const gone = await waitUntil(() => onA.call('GET', '/session'), (r) => r.status === 401, 1000, 10);
  expect(gone.ms).toBeLessThan(1000);
  const taken = await waitUntil(() => signInRequest(a!, EMAIL, 'a-brand-new-password'), (r) => r.status === 200, 1000, 20);
  expect(taken.ms).toBeLessThan(1000);
  expect((await signInRequest(a!, EMAIL, 'the-old-password')).status).toBe(401);
}, 60_000);
