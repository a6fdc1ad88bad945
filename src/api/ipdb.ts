// POST /v1/ip/update: start a database refresh (or join the running one), at
// most once an hour per account. GET /v1/ip/database: what is serving, the
// last refresh with its per-source outcome (`nodes`, the contract's word), and the next scheduled one.
import type { Config } from '../config.js';
import { AppError, publisherTextHidden } from '../errors.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import type { IpDatabase } from '../ipdb/database.js';
import { shownVersion } from '../ipdb/feeds/parse.js';
import { feedState, hasGoodData } from '../ipdb/feeds/state.js';
import { feedDueAt } from '../ipdb/feeds/update.js';
import { scheduledRefresh } from '../ipdb/refresh.js';
import { lastRefresh, refreshSeenBy } from '../ipdb/refresh-state.js';
import type { StateStore } from '../store/state-store.js';
import { objectBody } from './validate.js';

const TRIGGER_INTERVAL_MS = 3_600_000;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The configured feeds, the data directory whose feed files the states name, and the refresh interval. */
type FeedConfig = Pick<Config, 'feeds' | 'dataDir' | 'ipdbRefreshHours'>;

export interface RefreshControl {
  /** ms since the epoch when the running refresh started, or 0. */
  runningSince(): number;
  /**
   * Starts a refresh unless one is running: exactly one of several
   * simultaneous triggers (on any thread) starts it, the others join it.
   */
  trigger(accountId: number, now: number): { started: boolean; startedAt: number };
}

/**
 * The configured feeds as the serving database holds them (version, fetch
 * time, ranges) with each one's last refresh attempt and outcome
 * (feeds/state.ts); a feed the database does not hold (no snapshot, never
 * fetched) has nulls. The upstream ASN lists are compiled together into the
 * database's hosting list: they show the version of their own data and no
 * ranges. A caller without admin rights reads `last_error` without the
 * publishers' text (publisherTextHidden).
 */
function feedViews(config: FeedConfig, db: IpDatabase | null, stored: StateStore, admin: boolean) {
  return config.feeds.map((def) => {
    const state = feedState(stored, def.name);
    const held = def.list === undefined ? (db?.info.feeds.find((f) => f.name === def.name) ?? null) : null;
    const listData = def.list === undefined ? null : hasGoodData(state, config.dataDir) ? { version: state.version, fetchedAt: state.fetched_at } : def.snapshot ? { version: `snapshot ${def.snapshot.date}`, fetchedAt: new Date(Date.parse(def.snapshot.date)).toISOString() } : null;
    return {
      name: def.name,
      label: def.label,
      version: shownVersion(held?.version ?? listData?.version ?? null),
      fetched_at: held?.fetchedAt ?? listData?.fetchedAt ?? null,
      ranges: held?.count ?? null,
      last_attempt_at: state.last_attempt_at,
      last_outcome: state.last_outcome,
      last_error: admin ? state.last_error : publisherTextHidden(state.last_error),
      next_refresh_at: isoOrNull(feedDueAt(def, stored, Date.now())),
    };
  });
}

export function registerIpdbEndpoints(table: EndpointTable, state: StateStore, database: () => IpDatabase | null, control: RefreshControl, config: FeedConfig): void {
  table.add(
    'POST',
    '/v1/ip/update',
    async (req) => {
      // No body, or an empty object: the trigger has no options, and a
      // field (say "force") must not be silently ignored.
      if (req.body !== undefined) objectBody(req.body, []);
      const now = Date.now();
      const previous = await state.claimRefreshTrigger(req.account.id, now, TRIGGER_INTERVAL_MS);
      if (previous !== 0) {
        const wait = Math.max(1, Math.ceil((previous + TRIGGER_INTERVAL_MS - now) / 1000));
        throw new AppError('refresh_too_soon', `the next refresh may be triggered at ${new Date(previous + TRIGGER_INTERVAL_MS).toISOString()}`, null, {
          headers: { 'Retry-After': String(wait) },
        });
      }
      const { started, startedAt } = control.trigger(req.account.id, now);
      return {
        status: 202,
        body: {
          status: started ? 'started' : 'running',
          started_at: new Date(startedAt).toISOString(),
          next_allowed_at: new Date(now + TRIGGER_INTERVAL_MS).toISOString(),
        },
      };
    },
    { body: 'optional' },
  );

  table.add('GET', '/v1/ip/database', (req) => {
    const db = database();
    const next = scheduledRefresh(state, Date.now(), config.ipdbRefreshHours);
    const since = control.runningSince();
    return {
      status: 200,
      body: {
        available: db !== null,
        version: db?.info.version ?? null,
        built_at: db?.info.builtAt ?? null,
        source: db?.info.source ?? null,
        ranges: db ? db.info.ranges : null,
        records: db?.info.records ?? null,
        size: db?.info.size ?? null,
        checksum: db?.info.checksum ?? null,
        refresh_running: since !== 0,
        last_refresh: refreshSeenBy(lastRefresh(state), req.account.id, req.admin),
        next_refresh_at: isoOrNull(next),
        feeds: feedViews(config, db, state, req.admin),
      },
    };
  });
}
