// An email's budget of right sign-ins (10 a minute, finding 119) is spent only
// by someone holding its password; a stranger guessing at the email must
// still get the answer any wrong password gets. Before, the budget was
// checked before the password, so once the owner had signed in 10 times a
// wrong password was answered 429 "this user signed in 10 times in the
// last minute": whoever typed the email learned that it is a user, and an
// active one. Past the budget a right password is still refused, and stays
// counted against its address (20 a minute), so its hashes stay bounded,
// but not against the email at that address, which the owner's password
// change from a session there shares.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { signInRequest } from '../../helpers/console-session.js';
import { useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 2 });

const OVER = 'too many requests: this user signed in 10 times in the last minute; wait a minute and try again';
const FAILED = 'too many requests: too many failed sign-ins; wait a minute and try again';
const error = async (address: string) => ((await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: address })).json as { error: string }).error;

it('answers a wrong password as always once the email has spent its sign-ins, and refuses the right one', async () => {
  await runCliJson(['user', 'create', '--email', 'busy@x.y', '--password', 'longenough1', '--account', String(sg.server.accountId)], sg.server.dataDir);
  const first = await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: '127.0.0.81' });
  expect(first.status).toBe(200);
  for (let i = 1; i < 10; i++) expect((await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: '127.0.0.81', thread: i % 2 })).status).toBe(200);

  // A stranger, elsewhere: the email's budget shows in nothing.
  const guessed = await signInRequest(sg.server, 'busy@x.y', 'wrong-guess', { localAddress: '127.0.0.82' });
  const unknown = await signInRequest(sg.server, 'nobody@x.y', 'wrong-guess', { localAddress: '127.0.0.83' });
  expect(guessed.status).toBe(401);
  expect(guessed.json).toEqual(unknown.json);
  expect(guessed.json).toEqual({ error: 'the email or password is not correct', code: 'login_failed', field: null });

  // The owner, again and again at their own address: refused, naming the budget ...
  for (let i = 0; i < 7; i++) expect(await error('127.0.0.81')).toBe(OVER);
  // ... and their password change from a session there still goes through.
  const change = await request({
    port: sg.server.ports[0], ca: sg.server.ca, method: 'POST', path: '/console/api/session/password', localAddress: '127.0.0.81',
    headers: { Cookie: String(first.headers['set-cookie']?.[0]).split(';')[0]!, 'X-CSRF-Token': String(first.json.csrf_token) },
    json: { current_password: 'longenough1', new_password: 'longenough2' },
  });
  expect(change.status, change.body).toBe(200);

  // Right passwords past the budget count against their address: from a new
  // one, 20 are hashed and refused, then the address is refused unchecked.
  const answers: string[] = [];
  for (let i = 0; i < 22; i++) answers.push(((await signInRequest(sg.server, 'busy@x.y', 'longenough2', { localAddress: '127.0.0.84' })).json as { error: string }).error);
  expect(answers).toEqual([...Array(20).fill(OVER), ...Array(2).fill(FAILED)]);
}, 120_000);
