// Password hashing is bounded process-wide: at most MAX_RUNNING jobs run at
// once across every thread sharing the counter, each thread queues at most
// MAX_WAITING more in arrival order, and refuses the rest at once.
import { expect, it } from 'vitest';
import { MAX_RUNNING, MAX_WAITING, PasswordWork } from '../../src/console/password-work.js';

it('runs at most MAX_RUNNING at once across threads, queues MAX_WAITING per thread, refuses the rest', async () => {
  const shared = PasswordWork.allocate();
  const threads = [new PasswordWork(shared), new PasswordWork(shared)];
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const job = (n: number) => async () => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, 10));
    running--;
    order.push(n);
    return n;
  };
  const settled = await Promise.allSettled(
    Array.from({ length: 2 * (MAX_WAITING + 10) }, (_, i) => threads[i % 2].run(job(i))),
  );
  const refused = settled.filter((s) => s.status === 'rejected');
  expect(peak).toBe(MAX_RUNNING);
  // Each thread took one or two at once and queued MAX_WAITING; the rest were refused.
  expect(settled.length - refused.length).toBeGreaterThanOrEqual(2 * MAX_WAITING + 1);
  expect(settled.length - refused.length).toBeLessThanOrEqual(2 * MAX_WAITING + MAX_RUNNING);
  for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '1' } });
  // Within a thread, first come first served.
  const thread0 = order.filter((n) => n % 2 === 0);
  expect(thread0).toEqual([...thread0].sort((a, b) => a - b));
});
