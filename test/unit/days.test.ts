// Days as the stores count them (src/days.ts): whole UTC days since 1970,
// a day's first and last millisecond in the same day, before 1970 negative.
import { expect, it } from 'vitest';
import { DAY_MS, dayOf, isoDay } from '../../src/days.js';

it('counts whole UTC days since 1970', () => {
  expect(DAY_MS).toBe(86_400_000);
  expect(dayOf(0)).toBe(0);
  expect(dayOf(DAY_MS - 1)).toBe(0);
  expect(dayOf(DAY_MS)).toBe(1);
  expect(dayOf(Date.parse('2026-11-27T23:59:59.999Z'))).toBe(dayOf(Date.parse('2026-11-27T00:00:00.000Z')));
  expect(dayOf(-1)).toBe(-1);
});

it('writes a day as its ISO date', () => {
  expect(isoDay(0)).toBe('1970-01-01');
  expect(isoDay(dayOf(Date.parse('2026-11-27T12:00:00Z')))).toBe('2026-11-27');
  expect(isoDay(dayOf(Date.parse('2024-02-29T23:59:59.999Z')))).toBe('2024-02-29');
  expect(isoDay(-1)).toBe('1969-12-31');
});
