// `splitguard account create`, run while the server runs on the same data
// directory, prints {account_id, api_key}; the key works at once on every
// thread, for the new account (not the bootstrap one), with its own quota.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { call, limits } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

it('prints a key that works at once on both threads', async () => {
  const created = await runCliJson<{ account_id: number; api_key: string; name: string; quota: number }>(
    ['account', 'create', '--name', 'Acme Ltd', '--quota', '25'],
    server.dataDir,
  );
  expect(created.account_id).toBe(server.accountId + 1);
  expect(created.api_key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);

  for (const port of server.ports) {
    const r = await call(port, server.ca, 'GET', '/v1/account', created.api_key);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: created.account_id, name: 'Acme Ltd', quota: 25, routes_created: 0, quota_remaining: 25 });
    expect(limits(r).limit).toBe(60);
  }
  // The bootstrap key still belongs to the bootstrap account.
  const boot = await call(server.ports[0], server.ca, 'GET', '/v1/account', server.apiKey);
  expect(boot.json.id).toBe(server.accountId);
});

it('refuses a bad --quota with exit 2 and a message naming it', async () => {
  const r = await runCli(['account', 'create', '--name', 'x', '--quota', 'lots'], server.dataDir);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--quota must be a positive integer/);
  expect(r.stdout).toBe('');
});
