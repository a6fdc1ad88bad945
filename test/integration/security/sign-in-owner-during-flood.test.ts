// Strangers from many addresses (here 40 loopback addresses; an IPv6 /64
// counts as one) sign in with wrong passwords as fast as they can, while the
// owner signs in from an address of its own with the right password: the
// owner gets in. Attempts wait for the password work in the order of their
// address's count in the window, fewest first, so once each of the flood's
// addresses has failed the owner goes ahead of them. Before, the queue was first come
// first served: refused attempts were retried at once, the flood kept the
// process-wide queue full, and the owner got 429 in 9 or 10 of 10 tries.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInRequest } from '../../helpers/console-session.js';
import { sleep } from '../../helpers/attack.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2 });
});
afterAll(async () => {
  await server?.close();
});

it('the owner signs in while 40 addresses flood the sign-in with wrong passwords', async () => {
  const boot = JSON.parse(readFileSync(path.join(server.dataDir, 'bootstrap.json'), 'utf8'));
  let stop = false;
  const tally: Record<number, number> = {};
  const failed = new Set<number>();
  const attacker = async (a: number) => {
    while (!stop) {
      const r = await signInRequest(server, `nobody${a}@example.com`, 'wrong-password', { localAddress: `127.3.0.${10 + a}`, thread: a % 2 }).catch(() => null);
      if (r) tally[r.status] = (tally[r.status] ?? 0) + 1;
      if (r?.status === 401) failed.add(a);
      if (r?.status === 429) await sleep(/a minute/.test(r.body) ? 1000 : 20);
    }
  };
  const attackers = Array.from({ length: 40 }, (_, a) => attacker(a));
  // The flood's first attempts rank with the owner's (each address's first of the
  // minute): the owner goes ahead once every flooding address has failed once.
  const flooding = performance.now();
  while (failed.size < 40 && performance.now() - flooding < 30_000) await sleep(100);
  expect(failed.size, 'every flooding address failed once').toBe(40);
  const owner: number[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await signInRequest(server, boot.admin_email, boot.admin_password, { localAddress: '127.0.0.201', thread: i % 2 });
    owner.push(r.status);
    await sleep(200);
  }
  stop = true;
  await Promise.all(attackers);
  expect(owner.filter((s) => s === 200).length, `owner's answers ${owner.join(',')}; attackers' ${JSON.stringify(tally)}`).toBeGreaterThanOrEqual(8);
}, 90_000);
