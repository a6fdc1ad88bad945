// Cluster mode: an account's refresh trigger taken while a node's clock ran
// a year ahead does not hold the account's allowance once the clock is
// stepped back (PostgreSQL's claim, as the local store's:
// unit/clock-step-back-due-times.test.ts); one less than the interval ahead
// (another node's clock) still holds it.
import { expect, it } from 'vitest';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-trigger-clock-');
const T = Date.UTC(2026, 10, 27, 12, 0, 0);
const HOUR = 3_600_000;

it.skipIf(fixture.skip)('lets an account trigger again after a claim a year ahead, and not within the hour of a claim less than an hour ahead', async () => {
  const backend = fixture.backend();
  expect(await backend.claimRefreshTrigger(7, T + 365 * 24 * HOUR, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(7, T, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(7, T + 10 * 60_000, HOUR)).toBe(T);
  expect(await backend.claimRefreshTrigger(8, T + 30 * 60_000, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(8, T, HOUR)).toBe(T + 30 * 60_000);
});
