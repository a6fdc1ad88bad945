// `splitguard user password --email E --password P`, while the server runs:
// the user's password is replaced (a forgotten or leaked one), every console
// session of theirs ends, the old password no longer signs in and the new
// one does. Its bad command lines: reliability/cli-bad-input.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { consoleSession, createConsoleUser, signInRequest } from '../../helpers/console-session.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createConsoleUser(server, 'ivy@example.com', 'the-old-password');
});
afterAll(() => server?.close());

it('sets the password and ends the user\'s sessions in the running server', async () => {
  const session = await consoleSession(server, 'ivy@example.com', 'the-old-password');
  expect(await runCliJson(['user', 'password', '--email', 'IVY@example.com', '--password', 'a-brand-new-one'], server.dataDir)).toEqual({ email: 'ivy@example.com', sessions_ended: 1 });
  expect((await session.call('GET', '/session')).status).toBe(401);
  expect((await signInRequest(server, 'ivy@example.com', 'the-old-password')).status).toBe(401);
  expect((await signInRequest(server, 'ivy@example.com', 'a-brand-new-one')).status).toBe(200);
});
