// The conversion quota's counts (account_conversions) during a rolling
// upgrade: a node of the version before it (schema 3's code) still serves
// after a new node has migrated PostgreSQL, and stores and deletes
// conversions without knowing the counts. Its writes are the statements that
// code sends (addConversions: the routes' rows locked, one INSERT a
// conversion; deleteRoute: the route's row, then its data). The counts must
// still be what the accounts store: a route deleted there would otherwise
// stay counted for good (the tenant refused below its quota), and its
// conversions stored there would never count.
import { expect, it } from 'vitest';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fx = usePgBackend('sg-conversion-counts-older-node-');

/** Each account's count, and what its routes hold. */
async function counts(): Promise<{ counted: Record<number, number>; stored: Record<number, number> }> {
  const counted = Object.fromEntries((await fx.pg.query('SELECT account_id::int AS a, stored::int AS n FROM account_conversions')).map((r) => [r.a, r.n]));
  const stored = Object.fromEntries(
    (await fx.pg.query('SELECT r.account_id::int AS a, count(*)::int AS n FROM conversions c JOIN routes r ON r.id = c.route_id GROUP BY 1')).map((r) => [r.a, r.n]),
  );
  return { counted, stored };
}

const conversion = (routeId: number, i: number) => ({ routeId, accountId: 1, goal: 'g', visitor: i.toString(16).padStart(16, '0'), variant: 0, day: 20_000, at: 1, value: null });

it.skipIf(fx.skip !== null)('counts what a node of the version before stores and deletes', async () => {
  await fx.pg.query("INSERT INTO accounts (id, name, quota) VALUES (1, 'a', 10)");
  await fx.pg.query("INSERT INTO route_codes VALUES ('c1'), ('c2'), ('c3')");
  await fx.pg.query(
    `INSERT INTO routes (id, account_id, code, name, page_a, page_b, split_ratio, default_group, intercept_level, created_at, updated_at)
     SELECT id, 1, 'c' || id, 'r', 'a', 'b', 0.5, 'a', 'off', now(), now() FROM generate_series(1, 3) AS id`,
  );
  const backend = fx.backend();
  expect(await backend.addConversions(Array.from({ length: 5 }, (_, i) => conversion(1, i)), 100)).toEqual(Array(5).fill('counted'));
  expect(await counts()).toEqual({ counted: { 1: 5 }, stored: { 1: 5 } });

  // The older node stores 7 on route 2, in one transaction as its addConversions did.
  const values = Array.from({ length: 7 }, (_, i) => `(2, 'g', '${i.toString(16).padStart(16, '0')}', 0, 20000, 1, NULL)`);
  await fx.pg.query(
    `BEGIN; SELECT id FROM routes WHERE id = ANY('{2}'::bigint[]) ORDER BY id FOR UPDATE;
     ${values.map((v) => `INSERT INTO conversions (route_id, goal, visitor, variant, day, at, value) VALUES ${v} ON CONFLICT DO NOTHING;`).join('\n')}
     COMMIT`,
  );
  expect(await counts()).toEqual({ counted: { 1: 12 }, stored: { 1: 12 } });

  // The older node deletes route 1 (its 5 conversions), as its deleteRoute did.
  await fx.pg.query(
    `BEGIN; DELETE FROM routes WHERE id = 1 AND account_id = 1 RETURNING code;
     ${['route_days', 'variant_days', 'sketches', 'conversions', 'conversion_days'].map((t) => `DELETE FROM ${t} WHERE route_id = 1;`).join('\n')}
     UPDATE accounts SET routes_active = greatest(0, routes_active - 1) WHERE id = 1; COMMIT`,
  );
  expect(await counts()).toEqual({ counted: { 1: 7 }, stored: { 1: 7 } });

  // This version's own writes still count once: a deletion, then stores up to a quota of 10.
  expect(await backend.deleteRoute(1, 2, null)).toBe(true);
  expect(await counts()).toEqual({ counted: { 1: 0 }, stored: {} });
  const outcomes = await backend.addConversions(Array.from({ length: 12 }, (_, i) => conversion(3, i)), 10);
  expect(outcomes.filter((o) => o === 'counted')).toHaveLength(10);
  expect(outcomes.slice(10)).toEqual(['quota', 'quota']);
  expect(await counts()).toEqual({ counted: { 1: 10 }, stored: { 1: 10 } });
});
