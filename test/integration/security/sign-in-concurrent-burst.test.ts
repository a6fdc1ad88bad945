// Sixty sign-ins for one email from one address, all at once, 59 with a
// wrong password and the right one last. Each attempt is counted before its
// password is checked, atomically across threads: at most 5 are checked
// (5 per email at an address), every other one is refused with 429, the right
// one included. Before, all 60 passed the check and the right one got in.
import { expect, it } from 'vitest';
import { signInRequest, useServerWithLogin } from '../../helpers/console-session.js';

const ctx = useServerWithLogin('target@x.y', 'the-right-one', { threads: 2 });

it('checks at most 5 of 60 concurrent attempts and lets none of the rest in', async () => {
  const attempts = Array.from({ length: 60 }, (_, i) => (i === 59 ? 'the-right-one' : `wrong-${i}`));
  const answers = await Promise.all(
    attempts.map((password, i) => signInRequest(ctx.server, 'target@x.y', password, { localAddress: '127.0.0.5', thread: i % 2 })),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(0);
  expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(55);
  expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
});
