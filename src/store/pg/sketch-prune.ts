// Retention of the per-day unique-visitor sketches in PostgreSQL
// (SPLITGUARD_SKETCH_DAYS; ../sketch-prune.ts is the local store's). Every
// node runs it (the first server thread of each, at start and daily): it is
// idempotent, and two nodes pruning at once skip each other's rows rather
// than wait for them. Nodes given different retentions (a rolling change
// of the setting, or a mistake: node.ts warns of it) would otherwise each
// delete what the others still read: a prune keeps the days of the longest
// retention that a live node publishes in `nodes` (migration 6), read just
// before it starts; a node of the version before publishes none.
//
// The sketches table's primary key is (route_id, day, variant). The routes
// holding sketches are found ROUTES_PER_STEP at a time by a loose scan of
// that index (one probe a route, not a read of every row), and their days
// 1 to before − 1 deleted by statements of at most ROWS_PER_DELETE rows, each
// its own transaction, found through the same index. A row a flush holds
// locked (a batch of an old day merging into it) is skipped, left for the
// next run: no wait, and no deadlock with the flush's own lock order.
import { dayOf } from '../../days.js';
import type { Pool } from './client.js';
import { NODE_STALE_S } from './node.js';

const ROUTES_PER_STEP = 100;
const ROWS_PER_DELETE = 1000;

/**
 * Removes the per-day sketches of days 1 to `own` − 1 (this node's
 * retention), or fewer: none that a live node's keeps (today − its days
 * on). Stops between
 * two statements once `going` answers false. Resolves with the rows removed.
 */
export async function prunePgSketches(pool: Pool, own: number, going: () => boolean = () => true): Promise<number> {
  const { rows: longest } = await pool.query<{ days: number | null }>(
    `SELECT max(sketch_days) AS days FROM nodes WHERE last_seen > now() - interval '${NODE_STALE_S} seconds'`,
  );
  const days = longest[0].days;
  const before = days === null ? own : Math.min(own, dayOf(Date.now()) - days);
  let after = 0;
  let removed = 0;
  while (going()) {
    // PostgreSQL evaluates a recursive WITH only as far as its reader fetches: at most ROUTES_PER_STEP probes.
    const { rows } = await pool.query(
      `WITH RECURSIVE r(id) AS (
         (SELECT route_id FROM sketches WHERE route_id > $1 ORDER BY route_id LIMIT 1)
         UNION ALL
         SELECT (SELECT route_id FROM sketches WHERE route_id > r.id ORDER BY route_id LIMIT 1) FROM r WHERE r.id IS NOT NULL)
       SELECT id FROM r WHERE id IS NOT NULL LIMIT $2`,
      [after, ROUTES_PER_STEP],
    );
    if (rows.length === 0) break;
    const ids = rows.map((r) => Number(r.id));
    for (let n = ROWS_PER_DELETE; n === ROWS_PER_DELETE && going(); ) {
      const deleted = await pool.query(
        `DELETE FROM sketches s USING (
           SELECT route_id, day, variant FROM sketches WHERE route_id = ANY($1::bigint[]) AND day BETWEEN 1 AND $2 LIMIT $3 FOR UPDATE SKIP LOCKED) d
         WHERE s.route_id = d.route_id AND s.day = d.day AND s.variant = d.variant`,
        [ids, before - 1, ROWS_PER_DELETE],
      );
      n = deleted.rowCount ?? 0;
      removed += n;
    }
    after = ids[ids.length - 1];
  }
  return removed;
}
