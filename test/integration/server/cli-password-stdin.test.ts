// `--password-stdin`: `user create` and `user password` read the password
// alone from standard input (kept out of the process list and the shell's
// history), with one line end after it allowed, \n or \r\n, as a pipe or a
// file gives it. The password taken is exactly the line: it signs in, and
// the same text with the line end does not. Its refusals:
// reliability/cli-bad-input.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { signInRequest } from '../../helpers/console-session.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it('creates a user and sets a password from standard input', async () => {
  const created = await runCliJson(['user', 'create', '--email', 'lee@example.com', '--password-stdin', '--account', String(server.accountId)], server.dataDir, {}, 'pässwörd from a pipe\n');
  expect(created).toEqual({ email: 'lee@example.com', admin: false, account_id: server.accountId });
  expect((await signInRequest(server, 'lee@example.com', 'pässwörd from a pipe')).status).toBe(200);
  expect((await signInRequest(server, 'lee@example.com', 'pässwörd from a pipe\n')).status).toBe(401);

  expect(await runCliJson(['user', 'password', '--email', 'lee@example.com', '--password-stdin'], server.dataDir, {}, 'from a file, with CRLF\r\n')).toEqual({ email: 'lee@example.com', sessions_ended: 1 });
  expect((await signInRequest(server, 'lee@example.com', 'from a file, with CRLF')).status).toBe(200);
  expect((await signInRequest(server, 'lee@example.com', 'pässwörd from a pipe')).status).toBe(401);

  // No line end at all (printf '%s').
  await runCliJson(['user', 'password', '--email', 'lee@example.com', '--password-stdin'], server.dataDir, {}, 'no line end here');
  expect((await signInRequest(server, 'lee@example.com', 'no line end here')).status).toBe(200);
});
