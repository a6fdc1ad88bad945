// Sign out everywhere ends every console session of the user who asks, on
// every server thread, and no one else's: for a lost device or a session
// cookie someone else holds, which would otherwise live until its idle limit
// or its 12 hours. It is a change like any other (CSRF token, POST only), and
// the user can sign in again at once.
import { expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { type ConsoleSession, consoleSession, signInRequest, useServerWithLogin } from '../../helpers/console-session.js';
import { readBootstrap } from '../../helpers/server.js';

const EMAIL = 'dana@example.com';
const PASSWORD = 'a-long-password';
const ctx = useServerWithLogin(EMAIL, PASSWORD, { threads: 2 });

/** GET /console/api/session with a session's cookie, on a given thread. */
const sessionOn = (s: ConsoleSession, thread: number) =>
  request({ port: ctx.server.ports[thread]!, ca: ctx.server.ca, method: 'GET', path: '/console/api/session', headers: { Cookie: s.cookie } });

it('ends every session of the user on both threads, and only theirs', async () => {
  const mine = [await consoleSession(ctx.server, EMAIL, PASSWORD), await consoleSession(ctx.server, EMAIL, PASSWORD), await consoleSession(ctx.server, EMAIL, PASSWORD)];
  const boot = readBootstrap(ctx.server.dataDir);
  const admin = await consoleSession(ctx.server, boot.admin_email, boot.admin_password);

  // A change: no CSRF token, no sign-out; GET is not allowed.
  const forged = await request({ port: ctx.server.ports[1]!, ca: ctx.server.ca, method: 'POST', path: '/console/api/session/logout-everywhere', headers: { Cookie: mine[1]!.cookie } });
  expect(forged.status).toBe(403);
  expect(forged.json.code).toBe('csrf_failed');
  const get = await mine[0]!.call('GET', '/session/logout-everywhere');
  expect(get.status).toBe(405);
  expect(get.headers.allow).toBe('POST');
  for (const s of mine) expect((await sessionOn(s, 1)).status).toBe(200);

  const out = await mine[0]!.call('POST', '/session/logout-everywhere');
  expect(out.status).toBe(200);
  expect(out.json).toEqual({ ended: 3 });
  expect(out.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-sg_session=; Path=\/; Max-Age=0/), expect.stringMatching(/^__Host-sg_session_b=; Path=\/; Max-Age=0/)]);
  for (const s of mine) {
    for (const thread of [0, 1]) {
      const r = await sessionOn(s, thread);
      expect(r.status, `thread ${thread}`).toBe(401);
      expect(r.json.code).toBe('session_invalid');
    }
  }
  // Another user's session lives on.
  expect((await sessionOn(admin, 1)).status).toBe(200);
  expect((await admin.call('GET', '/session')).json.email).toBe(boot.admin_email);

  // Signing in again works at once, and the new session is the only one.
  expect((await signInRequest(ctx.server, EMAIL, PASSWORD, { thread: 1 })).status).toBe(200);
  const again = await consoleSession(ctx.server, EMAIL, PASSWORD);
  expect((await again.call('POST', '/session/logout-everywhere')).json).toEqual({ ended: 2 });
});
