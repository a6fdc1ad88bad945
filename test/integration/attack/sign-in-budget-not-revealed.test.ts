// An email's budget of right sign-ins (10 a minute, finding 119) is spent only
// by someone holding its password; a stranger guessing at the email must
// still get the answer any wrong password gets. Before, the budget was
// checked before the password, so once the owner had signed in 10 times a
// wrong password was answered 429 "this user signed in 10 times in the
// last minute": whoever typed the email learned that it is a user, and an
// active one. Past the budget a right password is still refused, and counts
// at its address as a failure does, so its hashes stay bounded as a wrong
// password's are (after 5 at one address, that pair is refused unchecked).
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { signInRequest } from '../../helpers/console-session.js';
import { useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 2 });

it('answers a wrong password as always once the email has spent its sign-ins, and refuses the right one', async () => {
  await runCliJson(['user', 'create', '--email', 'busy@x.y', '--password', 'longenough1', '--account', String(sg.server.accountId)], sg.server.dataDir);
  for (let i = 0; i < 10; i++) expect((await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: '127.0.0.81', thread: i % 2 })).status).toBe(200);

  // A stranger, elsewhere: the email's budget shows in nothing.
  const guessed = await signInRequest(sg.server, 'busy@x.y', 'wrong-guess', { localAddress: '127.0.0.82' });
  const unknown = await signInRequest(sg.server, 'nobody@x.y', 'wrong-guess', { localAddress: '127.0.0.83' });
  expect(guessed.status).toBe(401);
  expect(guessed.json).toEqual(unknown.json);
  expect(guessed.json).toEqual({ error: 'the email or password is not correct', code: 'login_failed', field: null });

  // The owner's eleventh: refused, naming the budget.
  const owner = await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: '127.0.0.81' });
  expect(owner.status).toBe(429);
  expect(owner.json).toMatchObject({ code: 'rate_limited', error: 'too many requests: this user signed in 10 times in the last minute; wait a minute and try again' });

  // Right passwords past the budget count at their address: from a new one,
  // five are hashed and refused, then the pair is refused as failures are.
  const answers: string[] = [];
  for (let i = 0; i < 7; i++) answers.push(((await signInRequest(sg.server, 'busy@x.y', 'longenough1', { localAddress: '127.0.0.84' })).json as { error: string }).error);
  expect(answers).toEqual([...Array(5).fill('too many requests: this user signed in 10 times in the last minute; wait a minute and try again'), ...Array(2).fill('too many requests: too many failed sign-ins; wait a minute and try again')]);
}, 120_000);
