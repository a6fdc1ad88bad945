// A flush of many dense sketches reaches PostgreSQL (store/pg/backend.ts
// addVisits, against a real PostgreSQL): 513 routes of 8 variants, each
// variant's sketch dense, are 8,208 rows with the lifetime's. Each statement
// carries at most SKETCH_ROWS of them; sent in one, their bytea array as hex
// passed V8's longest string (about 537 million characters) and the batch
// failed at every try, holding back every later batch of its thread.
import { expect, it } from 'vitest';
import { Hll, REGISTERS } from '../../../src/experiments/hll.js';
import type { VisitCounts } from '../../../src/store/experiments-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-dense-batch-');
const ROUTES = 513;
const DAY = 20_700;

it.skipIf(fixture.skip)('writes a batch of 8,208 dense sketch rows', async () => {
  const dense = new Hll(Uint8Array.from({ length: REGISTERS }, (_, i) => 1 + (i % 7))).serialize();
  expect(dense.length).toBe(1 + REGISTERS);
  const batch: VisitCounts[] = Array.from({ length: ROUTES }, (_, i) => ({ routeId: i + 1, day: DAY, clicks: Array(8).fill(1), sketches: Array(8).fill(dense) }));
  await fixture.backend().addVisits(batch, { writer: 'n/1/visits', seq: 1 });
  const [count] = await fixture.pg.query<{ rows: number; bytes: number }>('SELECT count(*)::int AS rows, sum(length(registers))::bigint AS bytes FROM sketches');
  expect(count.rows).toBe(2 * 8 * ROUTES);
  expect(Number(count.bytes)).toBe(2 * 8 * ROUTES * dense.length);
  const [last] = await fixture.pg.query<{ registers: Buffer }>('SELECT registers FROM sketches WHERE route_id = $1 AND day = 0 AND variant = 7', [ROUTES]);
  expect(Buffer.from(last.registers).equals(Buffer.from(dense))).toBe(true);
}, 120_000);
