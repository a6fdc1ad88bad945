// A signed-in user changes their password: the current one is checked as a
// sign-in is, under the sign-in limits (a session someone else holds is no
// faster way to guess it), a wrong one is a field error that keeps the
// session; the change ends every session of the user and the browser that
// made it goes on in a new one; the old password no longer signs in.
import { expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { consoleSession, createConsoleUser, sessionCookieOf, signInRequest, useServerWithLogin } from '../../helpers/console-session.js';
import { readBootstrap } from '../../helpers/server.js';

const EMAIL = 'gale@example.com';
const OLD = 'the-old-password';
const NEW = 'a-brand-new-password';
const ctx = useServerWithLogin(EMAIL, OLD, { threads: 2 });

it('checks the current password, ends every session and starts a new one', async () => {
  const [mine, other] = [await consoleSession(ctx.server, EMAIL, OLD), await consoleSession(ctx.server, EMAIL, OLD)];
  const boot = readBootstrap(ctx.server.dataDir);
  const admin = await consoleSession(ctx.server, boot.admin_email, boot.admin_password);

  const wrong = await mine.call('POST', '/session/password', { current_password: 'not-the-password', new_password: NEW });
  expect(wrong.status).toBe(400);
  expect(wrong.json).toMatchObject({ code: 'invalid_parameter', field: 'current_password' });
  const short = await mine.call('POST', '/session/password', { current_password: OLD, new_password: 'short' });
  expect(short.json).toMatchObject({ code: 'invalid_parameter', field: 'new_password' });
  const unknown = await mine.call('POST', '/session/password', { current_password: OLD, new_password: NEW, extra: 1 });
  expect(unknown.json).toMatchObject({ code: 'invalid_parameter', field: 'extra' });
  const forged = await request({ port: ctx.server.ports[0]!, ca: ctx.server.ca, method: 'POST', path: '/console/api/session/password', json: { current_password: OLD, new_password: NEW }, headers: { Cookie: mine.cookie } });
  expect(forged.status).toBe(403);
  expect((await mine.call('GET', '/session')).status).toBe(200);

  const changed = await mine.call('POST', '/session/password', { current_password: OLD, new_password: NEW });
  expect(changed.status, changed.body).toBe(200);
  expect(changed.json).toMatchObject({ email: EMAIL, sessions_ended: 2, csrf_token: expect.any(String) });
  expect(changed.json.csrf_token).not.toBe(mine.csrf);
  const cookie = sessionCookieOf(changed);
  expect(cookie).toMatch(/^__Host-sg_session=[A-Za-z0-9_-]{22}; __Host-sg_session_b=[A-Za-z0-9_-]{21}$/);
  expect(cookie).not.toBe(mine.cookie);

  for (const s of [mine, other]) expect((await s.call('GET', '/session')).status).toBe(401);
  for (const thread of [0, 1]) {
    const r = await request({ port: ctx.server.ports[thread]!, ca: ctx.server.ca, method: 'GET', path: '/console/api/session', headers: { Cookie: cookie } });
    expect(r.status, `thread ${thread}`).toBe(200);
  }
  expect((await admin.call('GET', '/session')).status).toBe(200);
  expect((await signInRequest(ctx.server, EMAIL, OLD)).status).toBe(401);
  expect((await signInRequest(ctx.server, EMAIL, NEW)).status).toBe(200);
});

it('counts wrong current passwords as failed sign-ins', async () => {
  // A user of its own: the test above failed sign-ins for its email.
  await createConsoleUser(ctx.server, 'hale@example.com', NEW);
  const s = await consoleSession(ctx.server, 'hale@example.com', NEW);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await s.call('POST', '/session/password', { current_password: `guess number ${i}`, new_password: 'whatever-it-is' })).status);
  // Five failures of one email at one address, then refused, even with the right password.
  expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  expect((await s.call('POST', '/session/password', { current_password: NEW, new_password: 'whatever-it-is' })).status).toBe(429);
  expect((await s.call('GET', '/session')).status).toBe(200);
});

it('is not stopped by someone signing in with the leaked password again and again', async () => {
  await createConsoleUser(ctx.server, 'lee@example.com', 'leaked-password');
  const owner = await consoleSession(ctx.server, 'lee@example.com', 'leaked-password');
  // The other holder of the password fills the minute's sign-ins (10 with the owner's).
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push(await signInRequest(ctx.server, 'lee@example.com', 'leaked-password'));
  expect(answers.map((r) => r.status)).toEqual([...Array(9).fill(200), 429]);
  const theirs = sessionCookieOf(answers[0]!);
  const changed = await owner.call('POST', '/session/password', { current_password: 'leaked-password', new_password: 'only-the-owner-knows' });
  expect(changed.status, changed.body).toBe(200);
  expect(changed.json.sessions_ended).toBe(10);
  const r = await request({ port: ctx.server.ports[0]!, ca: ctx.server.ca, method: 'GET', path: '/console/api/session', headers: { Cookie: theirs } });
  expect(r.status).toBe(401);
});
