// A connection lent out for a transaction that PostgreSQL terminates between
// two statements (a restart's 57P01 "terminating connection", which arrives
// with the last reply, or pg_terminate_backend): the transaction fails with
// storage_unavailable and the process lives on. Before, node-postgres raised
// the error as an 'error' event nobody listened to: under write load, a
// PostgreSQL restart ended whole nodes (SIGABRT), redirects included, twice
// both nodes of two at once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, createPool, inTransaction, type Pool } from '../../../src/store/pg/client.js';
import { postgresBin, startPostgres, type TestPostgres } from '../../helpers/postgres.js';

const skip = postgresBin() === null;
let pg: TestPostgres;
let pool: Pool;
beforeAll(async () => {
  if (skip) return;
  pg = await startPostgres();
  pool = createPool(pg.url, 'borrowed-connection test', 2);
});
afterAll(async () => {
  await pool?.end();
  pg?.close();
});

it.skipIf(skip)('fails the transaction, not the process, when its connection is terminated between statements', async () => {
  const killer = await connect(pg.url, 'terminator');
  try {
    const work = inTransaction(pool, async (c) => {
      const { rows } = await c.query('SELECT pg_backend_pid() AS pid');
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      // The termination arrives while no statement of this connection runs.
      await new Promise((r) => setTimeout(r, 300));
      await c.query('SELECT 1');
    });
    await expect(work).rejects.toMatchObject({ code: 'storage_unavailable' });
    // The pool goes on with a fresh connection.
    expect(await inTransaction(pool, async (c) => (await c.query('SELECT 2 AS n')).rows[0].n)).toBe(2);
  } finally {
    await killer.end();
  }
});
