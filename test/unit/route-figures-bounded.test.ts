// RouteFigures (src/api/route-figures.ts): what one instance keeps reaches
// every other instance on the channel, and each keeps at most MAX routes and
// MAX_CHARS characters of their JSON, oldest out first; late, older figures
// never replace newer ones. (Instances in one thread stand for a node's
// threads: a BroadcastChannel delivers to every other instance of its name.)
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { RouteFigures, type RouteFiguresEntry } from '../../src/api/route-figures.js';

const entry = (at: string, padding = 0): RouteFiguresEntry => ({ stats: { clicks: 1, note: 'x'.repeat(padding) }, experiment: null, at });
/** Until messages posted so far have arrived. */
const delivered = () => sleep(20);

it('shares what one instance keeps with the others', async () => {
  const [a, b] = [new RouteFigures(), new RouteFigures()];
  a.remember(7, entry('2026-11-29T10:00:00.000Z'));
  await delivered();
  expect(b.recall(7)).toEqual(entry('2026-11-29T10:00:00.000Z'));
  expect(b.recall(8)).toBeUndefined();
});

it('never lets older figures replace newer ones', async () => {
  const [a, b] = [new RouteFigures(), new RouteFigures()];
  b.remember(3, entry('2026-11-29T10:00:05.000Z'));
  a.remember(3, entry('2026-11-29T10:00:01.000Z'));
  await delivered();
  expect(b.recall(3)?.at).toBe('2026-11-29T10:00:05.000Z');
  expect(a.recall(3)?.at).toBe('2026-11-29T10:00:05.000Z');
});

it('keeps at most MAX routes, the oldest out first', () => {
  const a = new RouteFigures();
  for (let id = 1; id <= RouteFigures.MAX + 100; id++) a.remember(id, entry('2026-11-29T10:00:00.000Z'));
  expect(a.recall(100)).toBeUndefined();
  expect(a.recall(101)).toBeDefined();
  expect(a.recall(RouteFigures.MAX + 100)).toBeDefined();
});

it('keeps at most MAX_CHARS characters of figures', () => {
  const a = new RouteFigures();
  const big = 100_000;
  for (let id = 1; id <= 200; id++) a.remember(id, entry('2026-11-29T10:00:00.000Z', big));
  const kept = Array.from({ length: 200 }, (_, i) => i + 1).filter((id) => a.recall(id) !== undefined);
  expect(kept.length).toBeLessThanOrEqual(RouteFigures.MAX_CHARS / big);
  expect(kept.length).toBeGreaterThan(RouteFigures.MAX_CHARS / big - 2);
  // The newest are the ones kept.
  expect(kept.at(-1)).toBe(200);
  expect(kept[0]).toBe(200 - kept.length + 1);
});
