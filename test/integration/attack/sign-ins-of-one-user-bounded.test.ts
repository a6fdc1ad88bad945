// One console user (an ordinary tenant) signing in again and again with the
// right password: each sign-in stores a session, kept until it has been idle
// for SPLITGUARD_SESSION_IDLE_MINUTES (30; up to 720) or is 12 hours old,
// and nothing bounded how many one user held but the password work (about
// 24 sign-ins a second on this machine, every one an scrypt hash the other
// users' sign-ins wait behind): some 43,000 sessions in half an hour, a
// million at the longest idle setting, each swept by a scan of them all on a
// sign-in's path. An email now signs in at most 10 times a minute; past that
// a right password is 429 (sign-in-budget-not-revealed.test.ts). Another user at the
// same address is not held back.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { signInRequest } from '../../helpers/console-session.js';
import { tally } from '../../helpers/attack.js';
import { useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ threads: 2 });

const ATTEMPTS = 40;
const AT_ONCE = 4;
const ADDRESS = '127.0.0.77';

it('one user signing in again and again gets at most 10 sessions a minute; another user at the address still signs in', async () => {
  await runCliJson(['user', 'create', '--email', 'tenant@x.y', '--password', 'longenough1', '--account', String(sg.server.accountId)], sg.server.dataDir);
  const statuses: number[] = [];
  for (let i = 0; i < ATTEMPTS; i += AT_ONCE) {
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, k) => signInRequest(sg.server, 'tenant@x.y', 'longenough1', { localAddress: ADDRESS, thread: k % 2 })),
    );
    for (const a of answers) {
      statuses.push(a.status);
      if (a.status === 429) {
        expect(a.json).toMatchObject({ code: 'rate_limited', field: null });
        expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
  }
  const seen = tally(statuses);
  expect(seen[200], JSON.stringify(seen)).toBe(10);
  expect(seen[429], JSON.stringify(seen)).toBe(ATTEMPTS - 10);

  const boot = JSON.parse(readFileSync(path.join(sg.server.dataDir, 'bootstrap.json'), 'utf8'));
  expect((await signInRequest(sg.server, boot.admin_email, boot.admin_password, { localAddress: ADDRESS })).status).toBe(200);
}, 120_000);
