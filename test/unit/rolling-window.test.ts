// The rolling window both limiters keep per key (src/http/rolling-window.ts):
// counts leave it as their unit ages past the window, and a clock that moves
// a window or more either way starts it afresh.
import { expect, it } from 'vitest';
import { countInWindow, oldestCounted, rollWindow } from '../../src/http/rolling-window.js';

const N = 4;
/** One window at index 1 (index 0 stands for whatever precedes it in a table). */
const table = () => new Int32Array(1 + 2 + N);
const total = (a: Int32Array) => a[2];

it('counts per unit and forgets a unit once it is a window old', () => {
  const a = table();
  rollWindow(a, 1, N, 100);
  countInWindow(a, 1, N, 100);
  rollWindow(a, 1, N, 101);
  countInWindow(a, 1, N, 101);
  countInWindow(a, 1, N, 101);
  expect(total(a)).toBe(3);
  expect(oldestCounted(a, 1, N, 101)).toBe(1);
  rollWindow(a, 1, N, 104);
  expect(total(a)).toBe(2);
  expect(oldestCounted(a, 1, N, 104)).toBe(3);
  rollWindow(a, 1, N, 105);
  expect(total(a)).toBe(0);
  expect(oldestCounted(a, 1, N, 105)).toBe(-1);
  expect(a[0]).toBe(0);
});

it('keeps its counts when the clock stays or steps back less than a window', () => {
  const a = table();
  rollWindow(a, 1, N, 200);
  countInWindow(a, 1, N, 200);
  rollWindow(a, 1, N, 197);
  expect(total(a)).toBe(1);
  expect(a[1]).toBe(200);
});

it('starts afresh when the clock steps back a window or more', () => {
  const a = table();
  rollWindow(a, 1, N, 300);
  countInWindow(a, 1, N, 300);
  rollWindow(a, 1, N, 296);
  expect(total(a)).toBe(0);
  expect(a[1]).toBe(296);
  expect(oldestCounted(a, 1, N, 296)).toBe(-1);
});
