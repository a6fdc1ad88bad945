// `splitguard user delete --email E`, while the server runs: the login and
// every console session of it end at once (someone who left), its password
// no longer signs in, and its account stays with its API keys and routes.
// Other users are untouched. The last admin login is kept (the store with
// no user would bootstrap a new admin at the next start). Its bad command lines:
// reliability/cli-bad-input.test.ts.
import { expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { consoleSession, type ConsoleSession, signInRequest, useServerWithLogin } from '../../helpers/console-session.js';
import { api } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const ctx = useServerWithLogin('kim@example.com', 'a-long-password');

it('deletes the login and its sessions, and keeps the account', async () => {
  const sessions = [await consoleSession(ctx.server, 'kim@example.com', 'a-long-password'), await consoleSession(ctx.server, 'kim@example.com', 'a-long-password')];
  const boot = readBootstrap(ctx.server.dataDir);
  const admin = await consoleSession(ctx.server, boot.admin_email, boot.admin_password);
  expect(await logins(admin)).toContain('kim@example.com');

  expect(await runCliJson(['user', 'delete', '--email', 'Kim@Example.com'], ctx.server.dataDir)).toEqual({ email: 'kim@example.com', account_id: ctx.server.accountId, sessions_ended: 2 });
  for (const s of sessions) expect((await s.call('GET', '/session')).status).toBe(401);
  expect((await signInRequest(ctx.server, 'kim@example.com', 'a-long-password')).status).toBe(401);
  expect((await admin.call('GET', '/session')).status).toBe(200);
  expect(await logins(admin)).not.toContain('kim@example.com');
  expect((await api(ctx.server, 'GET', '/v1/routes')).status).toBe(200);

  const again = await runCli(['user', 'delete', '--email', 'kim@example.com'], ctx.server.dataDir);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/user delete: there is no user with email kim@example\.com/);
});

it('keeps the last admin login', async () => {
  const boot = readBootstrap(ctx.server.dataDir);
  const refused = await runCli(['user', 'delete', '--email', boot.admin_email], ctx.server.dataDir);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/user delete: admin@localhost is the last admin login; make another first \(user create --admin\)/);
  expect((await signInRequest(ctx.server, boot.admin_email, boot.admin_password)).status).toBe(200);

  await runCliJson(['user', 'create', '--email', 'ops@example.com', '--password', 'a-long-password', '--admin'], ctx.server.dataDir);
  expect(await runCliJson(['user', 'delete', '--email', boot.admin_email], ctx.server.dataDir)).toMatchObject({ email: boot.admin_email });
  expect((await runCli(['user', 'delete', '--email', 'ops@example.com'], ctx.server.dataDir)).code).toBe(1);
});

/** The emails of the logins of the server's account, as the admin console lists them. */
async function logins(admin: ConsoleSession): Promise<string[]> {
  const r = await admin.call('GET', '/accounts');
  expect(r.status, r.body).toBe(200);
  const account = (r.json.data as { id: number; users: { email: string }[] }[]).find((a) => a.id === ctx.server.accountId);
  expect(account).toBeDefined();
  return account!.users.map((u) => u.email);
}
