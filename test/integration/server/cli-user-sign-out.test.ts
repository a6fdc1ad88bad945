// `splitguard user sign-out --email E`, while the server runs: every console
// session of that user ends at the next request (the operator's answer to a
// lost device), the email read as sign-in reads it (any case), and no other
// user's. Its bad command lines: reliability/cli-bad-input.test.ts.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { consoleSession, useServerWithLogin } from '../../helpers/console-session.js';
import { readBootstrap } from '../../helpers/server.js';

const ctx = useServerWithLogin('erin@example.com', 'a-long-password');

it('ends the user\'s sessions in the running server', async () => {
  const sessions = [await consoleSession(ctx.server, 'erin@example.com', 'a-long-password'), await consoleSession(ctx.server, 'erin@example.com', 'a-long-password')];
  const boot = readBootstrap(ctx.server.dataDir);
  const admin = await consoleSession(ctx.server, boot.admin_email, boot.admin_password);

  expect(await runCliJson(['user', 'sign-out', '--email', 'Erin@Example.com'], ctx.server.dataDir)).toEqual({ email: 'erin@example.com', sessions_ended: 2 });
  for (const s of sessions) expect((await s.call('GET', '/session')).status).toBe(401);
  expect((await admin.call('GET', '/session')).status).toBe(200);
  expect(await runCliJson(['user', 'sign-out', '--email', 'erin@example.com'], ctx.server.dataDir)).toEqual({ email: 'erin@example.com', sessions_ended: 0 });
});
