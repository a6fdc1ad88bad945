// Cluster mode: an account's refresh trigger taken while a node's clock ran
// a year ahead does not hold the account's allowance once the clock is
// stepped back (PostgreSQL's claim, as the local store's:
// unit/clock-step-back-due-times.test.ts); one less than the interval ahead
// (another node's clock) still holds it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStores, type Stores } from '../../../src/store/db.js';
import { PgBackend } from '../../../src/store/pg/backend.js';
import { createPool, type Pool } from '../../../src/store/pg/client.js';
import { migrate } from '../../../src/store/pg/migrations.js';
import { Replica } from '../../../src/store/pg/replica.js';
import { postgresBin, startPostgres, type TestPostgres } from '../../helpers/postgres.js';

const skip = postgresBin() === null;
const T = Date.UTC(2026, 10, 27, 12, 0, 0);
const HOUR = 3_600_000;
let pg: TestPostgres;
let dir: string;
let stores: Stores;
let pool: Pool;
beforeAll(async () => {
  if (skip) return;
  pg = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), 'sg-trigger-clock-'));
  stores = openStores(dir);
  pool = createPool(pg.url, 'test', 2);
  await migrate(pool);
});
afterAll(async () => {
  await pool?.end().catch(() => {});
  await stores?.root.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  pg?.close();
});

it.skipIf(skip)('lets an account trigger again after a claim a year ahead, and not within the hour of a claim less than an hour ahead', async () => {
  const backend = new PgBackend(pool, new Replica(stores, pool), 'test', () => true);
  expect(await backend.claimRefreshTrigger(7, T + 365 * 24 * HOUR, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(7, T, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(7, T + 10 * 60_000, HOUR)).toBe(T);
  expect(await backend.claimRefreshTrigger(8, T + 30 * 60_000, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(8, T, HOUR)).toBe(T + 30 * 60_000);
});
