// Eight password changes of one user at once, each with the right current
// password and a new password of its own, spread over both threads: exactly
// one is taken (the others checked the same old hash, and a change applies
// only over the hash it checked: 400 current_password; or they found the
// minute's 5 changes spent: 429). Afterwards exactly that change's password
// signs in, and its session is the user's only one.
import { expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { consoleSession, sessionCookieOf, signInRequest, useServerWithLogin } from '../../helpers/console-session.js';

const EMAIL = 'race@example.com';
const OLD = 'the-old-password';
const ctx = useServerWithLogin(EMAIL, OLD, { threads: 2 });

it('takes exactly one of racing changes', async () => {
  const s = await consoleSession(ctx.server, EMAIL, OLD);
  const candidates = Array.from({ length: 8 }, (_, i) => `new-password-number-${i}`);
  const answers = await Promise.all(candidates.map((next, i) => request({
    port: ctx.server.ports[i % 2]!,
    ca: ctx.server.ca,
    method: 'POST',
    path: '/console/api/session/password',
    json: { current_password: OLD, new_password: next },
    headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } })));
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((x) => x === 200), statuses.join()).toHaveLength(1);
  for (const r of answers.filter((a) => a.status !== 200)) {
    expect([400, 429]).toContain(r.status);
    if (r.status === 400) expect(r.json.field).toBe('current_password');
  }
  const winner = statuses.indexOf(200);
  for (const [i, next] of candidates.entries()) {
    // Each from an address of its own: seven wrong passwords from one would meet the sign-in limit.
    expect((await signInRequest(ctx.server, EMAIL, next, { thread: i % 2, localAddress: `127.0.12.${i + 1}` })).status, next).toBe(i === winner ? 200 : 401);
  }
  expect((await signInRequest(ctx.server, EMAIL, OLD, { localAddress: '127.0.12.20' })).status).toBe(401);
  // The winner's session, plus the one its sign-in above made.
  const cookie = sessionCookieOf(answers[winner]!);
  const token = answers[winner]!.json.csrf_token as string;
  const ended = await request({ port: ctx.server.ports[0]!, ca: ctx.server.ca, method: 'POST', path: '/console/api/session/logout-everywhere', headers: { Cookie: cookie, 'X-CSRF-Token': token } });
  expect(ended.json).toEqual({ ended: 2 });
});
