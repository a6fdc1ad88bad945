// Retention of the per-day unique-visitor sketches in the local store
// (SPLITGUARD_SKETCH_DAYS, experiments-store.ts pruneSketches). A dense
// sketch is 32 KiB, up to 8 a route and day, and anyone who knows a link can
// make its sketches dense; a report reads only recent days and the lifetime
// sketch (day 0), which stays.
//
// The sketches database is keyed [route, day, variant], so a route's keys
// are its lifetime's ([r, 0, v]) and then its days in order: the days to
// delete ([r, 1, 0] up to [r, before)) are one range at the start of each
// route's. The walk seeks to that range route by route and never reads a
// kept day's key but the first: a seek a route to find its first day (past
// its lifetime keys), one more to gather the range when it has one, and the
// removals, where a scan of every key would read each route's kept days too,
// every day.
import type { Stores } from './db.js';

/**
 * What one transaction may do: a removal counts 1, a seek 2 (measured: about
 * 5 µs a removal, 10 µs a seek, with lmdb-js 3.5 on the 2-core VM), so each
 * holds the store's one write lock for about 5 ms at most, as the route
 * purge's PURGE_CHUNK (lmdb-backend.ts) does.
 */
const PRUNE_CHUNK = 1000;
/** A route has at most 8 lifetime keys ([r, 0, v]): a seek reads one more key than that to reach its days. */
const LIFETIME_KEYS = 8;

/**
 * Removes the per-day sketches of days 1 to `before` − 1 of every route, in
 * transactions of at most PRUNE_CHUNK (seeks weighing 2); stops between two
 * transactions once `going` answers false. Resolves with the keys removed.
 * No cursor is walked while it is written: each range's keys are gathered
 * first, and a transaction never reads its own removals.
 */
export async function pruneLocalSketches(stores: Stores, before: number, going: () => boolean = () => true): Promise<number> {
  const { sketches } = stores;
  /** Every route below this one is done. */
  let route = 0;
  let removed = 0;
  for (let done = false; !done && going(); ) {
    done = await stores.root.transaction(() => {
      for (let visited = 0; visited < PRUNE_CHUNK; ) {
        // The first day key from [route, 1] on, past the lifetime keys of the routes after `route`.
        let first: [number, number, number] | undefined;
        let last: [number, number, number] | undefined;
        let seen = 0;
        for (const key of sketches.getKeys({ start: [route, 1], limit: LIFETIME_KEYS + 1 })) {
          seen++;
          last = key;
          if (key[1] !== 0) {
            first = key;
            break;
          }
        }
        visited += 2;
        if (first === undefined) {
          if (seen <= LIFETIME_KEYS) return true; // the end of the database
          route = last![0]; // routes with lifetime keys only: go on from the last one's days
          continue;
        }
        const [r, day] = first;
        if (day >= before) {
          route = r + 1;
          continue;
        }
        route = r;
        const limit = PRUNE_CHUNK - visited;
        const keys = [...sketches.getKeys({ start: [r, 1], end: [r, before], limit })];
        for (const key of keys) sketches.remove(key);
        visited += 2 + keys.length;
        removed += keys.length;
        // The whole range is gone (else the next transaction goes on with it).
        if (keys.length < limit) route = r + 1;
      }
      return false;
    });
  }
  return removed;
}
