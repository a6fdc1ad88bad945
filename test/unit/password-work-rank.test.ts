// Password work by rank (an attempt's address count, console/login.ts): the
// queue serves lower ranks first and arrivals in order within a rank; a full
// queue makes room for a job by refusing the newest job of a higher rank, and
// refuses a job whose rank no waiting job exceeds.
import { expect, it } from 'vitest';
import { MAX_RUNNING, MAX_WAITING, PasswordWork } from '../../src/console/password-work.js';

it('serves lower ranks first, evicts the newest higher rank when full, refuses an equal rank', async () => {
  const work = new PasswordWork(PasswordWork.allocate());
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const job = (name: string, wait = false) => async () => {
    if (wait) await gate;
    order.push(name);
  };
  // The slots taken by jobs that wait on the gate; then a full queue of rank 5.
  const running = Array.from({ length: MAX_RUNNING }, (_, i) => work.run(job(`run${i}`, true), 0));
  const flood = Array.from({ length: MAX_WAITING }, (_, i) => work.run(job(`flood${i}`), 5));
  const floodSettled = Promise.allSettled(flood);
  // Rank 1 gets in by evicting the newest rank-5 job; another rank 5 is refused at once.
  const owner = work.run(job('owner'), 1);
  await expect(work.run(job('late'), 5)).rejects.toMatchObject({ code: 'rate_limited' });
  release();
  await Promise.all([...running, owner]);
  const settled = await floodSettled;
  expect(settled.map((s) => s.status)).toEqual([...Array(MAX_WAITING - 1).fill('fulfilled'), 'rejected']);
  expect(order.slice(MAX_RUNNING)).toEqual(['owner', ...Array.from({ length: MAX_WAITING - 1 }, (_, i) => `flood${i}`)]);
});
