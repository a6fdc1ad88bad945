// A key reset replaces one key by one. Resets of one key sent at once (a
// double click, two tabs, a retried request) on both threads: one is
// answered 200 with the one new secret, the others 400 naming id, as a reset
// of a revoked key is; the account has one live key, and the old key is
// refused. Before the fix the check, the revocation and the creation were
// three steps: every racing reset was answered 200 with its own working
// secret, and the account was left with up to eight live keys.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { consoleSession } from '../../helpers/console-session.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(() => server?.close());

it('replaces a key by exactly one key when resets of it race', async () => {
  const acct = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'resets'], server.dataDir);
  await runCliJson(['user', 'create', '--email', 'resets@x.y', '--password', 'longenough1', '--account', String(acct.account_id)], server.dataDir);
  const session = await consoleSession(server, 'resets@x.y', 'longenough1');
  const id = (await session.call('GET', '/keys')).json.data[0].id as string;

  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      request({ port: server.ports[i % 2], ca: server.ca, method: 'POST', path: `/console/api/keys/${id}/reset`, headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf } }),
    ),
  );
  const won = answers.filter((r) => r.status === 200);
  const working = await Promise.all(won.map((r) => request({ port: server.ports[0], ca: server.ca, path: '/v1/account', key: r.json.api_key })));
  const live = (await session.call('GET', '/keys')).json.data.filter((k: { revoked_at: string | null }) => k.revoked_at === null);

  expect(answers.map((r) => r.status).sort(), 'statuses of 8 racing resets').toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
  expect(working.filter((r) => r.status === 200)).toHaveLength(1);
  expect(live).toHaveLength(1);
  // The old key is refused whatever happened.
  expect((await request({ port: server.ports[1], ca: server.ca, path: '/v1/account', key: acct.api_key })).status).toBe(401);
});
