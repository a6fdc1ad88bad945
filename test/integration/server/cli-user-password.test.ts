// `splitguard user password --email E --password P`, while the server runs:
// the user's password is replaced (a forgotten or leaked one), every console
// session of theirs ends, the old password no longer signs in and the new
// one does. Its bad command lines: reliability/cli-bad-input.test.ts.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { consoleSession, signInRequest, useServerWithLogin } from '../../helpers/console-session.js';

const ctx = useServerWithLogin('ivy@example.com', 'the-old-password');

it('sets the password and ends the user\'s sessions in the running server', async () => {
  const session = await consoleSession(ctx.server, 'ivy@example.com', 'the-old-password');
  expect(await runCliJson(['user', 'password', '--email', 'IVY@example.com', '--password', 'a-brand-new-one'], ctx.server.dataDir)).toEqual({ email: 'ivy@example.com', sessions_ended: 1 });
  expect((await session.call('GET', '/session')).status).toBe(401);
  expect((await signInRequest(ctx.server, 'ivy@example.com', 'the-old-password')).status).toBe(401);
  expect((await signInRequest(ctx.server, 'ivy@example.com', 'a-brand-new-one')).status).toBe(200);
});
