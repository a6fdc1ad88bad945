// Cluster mode: an account's 100 live keys hold whatever the racing: 300
// key creations sent at once, half through each node's console, leave
// exactly 100 live keys in PostgreSQL, the rest refused naming the limit.
// The limit is counted in the creation's own transaction, with the
// account's row locked. Before, it was checked against the node's replica
// before the write only, and all 300 were created (301 live keys).
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('creates no more than 100 live keys from 300 creations racing on two nodes', async () => {
  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const sessions = await Promise.all([0, 1].map((i) => consoleSession(cluster.nodes[i], boot.admin_email, boot.admin_password)));
  const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => sessions[i % 2].call('POST', '/keys', { name: `racing ${i}` })));
  const statuses = answers.map((r) => r.status);
  // The bootstrap key is the account's first.
  expect(statuses.filter((s) => s === 201)).toHaveLength(99);
  expect(statuses.filter((s) => s !== 201).every((s) => s === 400)).toBe(true);
  expect(answers.find((r) => r.status === 400)!.json).toMatchObject({ code: 'invalid_parameter' });
  const [row] = await cluster.pg.query<{ live: number }>('SELECT count(*)::int AS live FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [boot.account_id]);
  expect(row.live).toBe(100);
}, 60_000);
