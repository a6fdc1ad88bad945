// The report's memo of probabilities of being best (report.ts BestMemo) is
// keyed by the counts themselves: the same counts are answered with what
// probBest gives them, counts that moved by one conversion or one visitor
// get their own figures (never the older ones), and the memo holds at most
// BestMemo.MAX entries, dropping the least recently used.
import { expect, it } from 'vitest';
import { BestMemo } from '../../../src/experiments/report.js';
import { probBest } from '../../../src/experiments/stats.js';

const arms = (extra = 0, visitors = 0) =>
  Array.from({ length: 8 }, (_, v) => ({ conversions: 2 + ((3 + v) % 7) + (v === 7 ? extra : 0), visitors: 45 + v * 3 + (v === 0 ? visitors : 0) }));

it('answers the same counts with probBest\'s figures, and changed counts with new ones', () => {
  const memo = new BestMemo();
  const first = memo.get(arms());
  expect(first).toEqual(probBest(arms()));
  expect(memo.get(arms())).toBe(first); // remembered: the same frozen array
  const converted = memo.get(arms(1));
  expect(converted).toEqual(probBest(arms(1)));
  expect(converted[7]).toBeGreaterThan(first[7]!);
  const visited = memo.get(arms(0, 1));
  expect(visited).toEqual(probBest(arms(0, 1)));
  expect(visited).not.toEqual(first);
  // An arm without visitors is part of the key too.
  expect(memo.get([null, ...arms().slice(1)])).toEqual(probBest([null, ...arms().slice(1)]));
  expect(memo.get([{ conversions: 1, visitors: 10 }, null])).toEqual([1, null]);
  expect(memo.get([null, { conversions: 1, visitors: 10 }])).toEqual([null, 1]);
});

it('holds at most MAX entries, keeping the most recently used', () => {
  const memo = new BestMemo();
  const two = (x: number) => [{ conversions: x, visitors: 100 }, { conversions: 5, visitors: 100 }];
  const kept = memo.get(two(0));
  for (let x = 1; x < BestMemo.MAX; x++) memo.get(two(x));
  expect(memo.size).toBe(BestMemo.MAX);
  expect(memo.get(two(0))).toBe(kept); // used again: now the newest
  memo.get(two(BestMemo.MAX)); // full: the oldest (x = 1) goes
  expect(memo.size).toBe(BestMemo.MAX);
  expect(memo.get(two(0))).toBe(kept);
  const again = memo.get(two(1));
  expect(again).toEqual(probBest(two(1)));
  expect(memo.size).toBe(BestMemo.MAX);
});
