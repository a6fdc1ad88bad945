// PostgreSQL migration 4 (account_conversions, the conversion quota's
// counts): a database from before gets each account's count of the
// conversions its routes hold; a route's that is gone (its rows left by an
// older version) is nobody's, and an account without conversions has no row.
import { expect, it } from 'vitest';
import { postgresBin, startPostgres } from '../../helpers/postgres.js';
import { createPool } from '../../../src/store/pg/client.js';
import { migrate } from '../../../src/store/pg/migrations.js';

it.skipIf(postgresBin() === null)("counts each account's stored conversions at the upgrade", async () => {
  const pg = await startPostgres();
  const pool = createPool(pg.url, 'scratch', 2);
  try {
    await migrate(pool);
    await pg.query("INSERT INTO accounts (id, name, quota) VALUES (1, 'a', 10), (2, 'b', 10), (3, 'c', 10)");
    await pg.query("INSERT INTO route_codes VALUES ('c1'), ('c2'), ('c3')");
    await pg.query("INSERT INTO routes (id, account_id, code, name, page_a, page_b, split_ratio, default_group, intercept_level, created_at, updated_at) VALUES (1, 1, 'c1', 'r', 'a', 'b', 0.5, 'a', 'off', now(), now()), (2, 1, 'c2', 'r', 'a', 'b', 0.5, 'a', 'off', now(), now()), (3, 2, 'c3', 'r', 'a', 'b', 0.5, 'a', 'off', now(), now())");
    await pg.query("INSERT INTO conversions (route_id, goal, visitor, variant, day, at) SELECT r, 'g', lpad(i::text, 16, '0'), 0, 1, 1 FROM (VALUES (1, 12), (2, 30), (3, 5), (9, 40)) AS t(r, n), generate_series(1, n) AS i");
    // As a database of schema 3 holds them: no counts, nor the triggers that keep them (migration 5).
    await pg.query('DROP TRIGGER conversions_counted ON conversions; DROP TRIGGER route_conversions_uncounted ON routes');
    await pg.query('DROP FUNCTION account_conversions_added(); DROP FUNCTION account_conversions_route_gone()');
    await pg.query('DROP TABLE account_conversions');
    // Nor the settings nodes publish (migration 6).
    await pg.query('ALTER TABLE nodes DROP COLUMN sketch_days, DROP COLUMN conversion_quota');
    // Nor the sessions' index by email (migration 7).
    await pg.query('DROP INDEX sessions_email');
    await pg.query('DELETE FROM schema_migrations WHERE version >= 4');
    await migrate(pool);
    expect(await pg.query('SELECT account_id::int AS a, stored::int AS n FROM account_conversions ORDER BY 1')).toEqual([{ a: 1, n: 42 }, { a: 2, n: 5 }]);
  } finally {
    await pool.end();
    pg.close();
  }
});
