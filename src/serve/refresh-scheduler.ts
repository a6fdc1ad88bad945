// When the database and the feeds are refreshed: the daily schedule (its due
// time kept in the refresh state, so a restart keeps it), each feed's own schedule (Tor
// hourly) between the daily runs, API triggers and the repair of a damaged
// install. One refresh runs at a time (Refresher). The start of a full one
// is published to every thread through a shared slot: GET /v1/ip/database
// reports it, and a thread that finds it set joins that refresh instead of
// asking for another. Feeds-only runs leave the slot alone, so an API
// trigger during one still gets its full refresh (queued behind it).
import type { Config } from '../config.js';
import { sourcesFor } from '../ipdb/feeds/registry.js';
import { dueFeeds } from '../ipdb/feeds/update.js';
import type { BuildResult } from '../ipdb/build.worker.js';
import { currentDatabasePath } from '../ipdb/current.js';
import { feedFiles } from '../ipdb/feeds/state.js';
import { foldsOtherFeeds, nextDue, nextRefreshAt, Refresher, type RefreshScope, scheduledRefresh, storeNextDue } from '../ipdb/refresh.js';
import { log } from '../log.js';
import { Metric, type Metrics } from '../metrics.js';
import type { StateStore } from '../store/state-store.js';

/** How often to look for feeds whose refresh is due. */
const FEED_POLL_MS = 60_000;
/** How often a node that may not refresh (cluster mode, not the leader) looks again. */
const GATE_POLL_MS = 5000;
/** setTimeout's longest wait; a later due time is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class RefreshScheduler {
  readonly #config: Config;
  readonly #state: StateStore;
  readonly #metrics: Metrics;
  readonly #refresher: Refresher;
  /** BigInt64 slot shared with the threads: start of the running or requested full refresh in ms, 0 when none. */
  readonly #runningSince: BigInt64Array;
  #daily: NodeJS.Timeout | undefined;
  #feedPoll: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Whether this process may refresh now: always on a single node; in cluster mode only the leader (store/pg/ipdb.ts). */
  readonly #mayRun: () => boolean;

  constructor(
    config: Config,
    state: StateStore,
    metrics: Metrics,
    runningSince: SharedArrayBuffer,
    onInstalled: (result: BuildResult) => Promise<void>,
    mayRun: () => boolean = () => true,
  ) {
    this.#mayRun = mayRun;
    this.#config = config;
    this.#state = state;
    this.#metrics = metrics;
    this.#runningSince = new BigInt64Array(runningSince);
    this.#refresher = Refresher.forConfig(config, state, onInstalled);
  }

  get busy(): boolean {
    return this.#refresher.runningSince !== 0;
  }

  /**
   * Arms the daily timer and the feed poll; a first start sets the first due
   * time. A database holding another set of feeds than the configuration
   * asks for (SPLITGUARD_FEEDS changed) gets them folded in now.
   */
  async start(): Promise<void> {
    if (!this.#mayRun()) {
      // Not the leader (yet): the schedule waits (#arm looks again).
      this.#arm();
      return;
    }
    if (nextRefreshAt(this.#state) === null) await storeNextDue(this.#state, nextDue(Date.now(), this.#config.ipdbRefreshHours));
    this.#arm();
    if (foldsOtherFeeds(currentDatabasePath(this.#config.dataDir), feedFiles(this.#config.feeds, this.#state, this.#config.dataDir))) void this.run('configured feeds changed', 'refold');
    // Started again after a new election (cluster mode): one poll only.
    clearInterval(this.#feedPoll);
    this.#feedPoll = setInterval(() => {
      if (this.busy || this.#stopped || this.#config.feedSources === 'off' || !this.#mayRun()) return;
      if (dueFeeds(this.#config.feeds, this.#state, Date.now(), (f) => sourcesFor(this.#config.feedSources, f)).length > 0) void this.run('feed schedule', 'feeds');
    }, FEED_POLL_MS);
    this.#feedPoll.unref();
  }

  /** Starts a refresh (or joins the running one); never rejects. */
  run(trigger: string, scope: RefreshScope = 'all'): Promise<unknown> {
    if (this.#stopped || !this.#mayRun()) return Promise.resolve();
    const run = this.#refresher.start(trigger, scope);
    // An API trigger already claimed the slot with its own time; keep it.
    if (scope === 'all') Atomics.compareExchange(this.#runningSince, 0, 0n, BigInt(Date.now()));
    return run
      .then((record) => {
        this.#metrics.inc(record.outcome === 'updated' ? Metric.refreshUpdated : record.outcome === 'unchanged' ? Metric.refreshUnchanged : Metric.refreshFailed);
      })
      .catch((err) => {
        this.#metrics.inc(Metric.refreshFailed);
        log('error', 'ipdb_refresh_crashed', { error: err });
      })
      .finally(async () => {
        if (scope === 'all') {
          // The next due time first: a status read between the two would
          // show the refresh done and the due time that started it.
          await storeNextDue(this.#state, nextDue(Date.now(), this.#config.ipdbRefreshHours));
          Atomics.store(this.#runningSince, 0, 0n);
        }
        this.#arm();
      });
  }

  #arm(): void {
    clearTimeout(this.#daily);
    if (this.#stopped) return;
    if (!this.#mayRun()) {
      this.#daily = setTimeout(() => this.#arm(), GATE_POLL_MS);
      this.#daily.unref();
      return;
    }
    const due = this.#due();
    this.#daily = setTimeout(
      () => {
        if (this.#due() <= Date.now()) void this.run('schedule');
        else this.#arm();
      },
      Math.max(0, Math.min(due - Date.now(), MAX_TIMER_MS)),
    );
    this.#daily.unref();
  }

  /** When the daily refresh is due (scheduledRefresh: a due time set while the clock ran ahead is due now). */
  #due(): number {
    return scheduledRefresh(this.#state, Date.now(), this.#config.ipdbRefreshHours) ?? 0;
  }

  /** Stops the timers; a refresh asked for from now on does not start. */
  halt(): void {
    this.#stopped = true;
    clearTimeout(this.#daily);
    clearInterval(this.#feedPoll);
  }

  /** After halt(): waits for a running refresh and its build process to end. */
  close(): Promise<void> {
    return this.#refresher.close();
  }
}
