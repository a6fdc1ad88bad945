// One server thread: its own storage handle, its own mapping of the database
// (the kernel shares the pages), its own uWS app on the shared port.
import { parentPort } from 'node:worker_threads';
import { registerAccountEndpoints } from './api/account.js';
import { registerBlacklistEndpoints } from './api/blacklist.js';
import { registerConsoleEndpoints } from './console/api.js';
import { registerIpEndpoints } from './api/ip.js';
import { registerIpdbEndpoints } from './api/ipdb.js';
import type { KeywordTables } from './quality/classifier.js';
import { registerRouteEndpoints } from './api/routes.js';
import { registerConversionEndpoints } from './api/conversions.js';
import { CLICK_ID_SECRET, ClickIds } from './experiments/click-id.js';
import { VisitRecorder } from './experiments/visits.js';
import { randomBytes } from 'node:crypto';
import { DAY_MS } from './days.js';
import { ClickRecorder, FLUSH_MS } from './redirect/clicks.js';
import { Redirector } from './redirect/redirect.js';
import { RouteCache } from './redirect/route-cache.js';
import { BLACKLIST_POLL_MS, QualityState } from './quality/state.js';
import { type AppDeps, buildApp } from './app.js';
import type { Config } from './config.js';
import { IpDatabase } from './ipdb/database.js';
import { log, setLogNode, setLogThread } from './log.js';
import { Metric, Metrics } from './metrics.js';
import { localLimits, localTables } from './limits/limits.js';
import { PasswordWork } from './console/password-work.js';
import type { ConsoleFiles } from './console/static.js';
import { EndpointTable } from './http/endpoint-table.js';
import { type us_listen_socket, uws } from './http/uws.js';
import { KeyCache } from './store/accounts-store.js';
import { handleStorageCommitErrors } from './store/commit-errors.js';
import { limitsOf } from './store/experiments-store.js';
import { ClusterStatus } from './store/pg/cluster-status.js';
import { openStorage } from './store/storage.js';

/** Connections to PostgreSQL each server thread may hold (writes, statistics). */
const THREAD_POOL_SIZE = 4;
/**
 * A stop's time line, from the shutdown message, inside the 15 s the main
 * thread gives it (DRAIN_MS, serve/threads.ts) before it ends the thread:
 * requests in flight may finish for up to 10 s, and the last flush ends at
 * 12 s, its connections to PostgreSQL cut if still busy. What it had not
 * sent by then is in the local spill, for the next start.
 */
const INFLIGHT_WAIT_MS = 10_000;
const LAST_FLUSH_BY_MS = 12_000;

export interface WorkerInput {
  thread: number;
  config: Config;
  dbFile: string;
  tls: { certFile: string; keyFile: string };
  shared: {
    accounts: SharedArrayBuffer;
    /** FailureLimiter: failed API authentications per client address. */
    authFailures: SharedArrayBuffer;
    /** FailureLimiter tables of failed console sign-ins (console/login.ts). */
    loginAddresses: SharedArrayBuffer;
    loginEmailAtAddress: SharedArrayBuffer;
    loginEmails: SharedArrayBuffer;
    /** FailureLimiter: successful console sign-ins per email (console/login.ts). */
    signIns: SharedArrayBuffer;
    /** PasswordWork: password hashes running, process-wide. */
    passwordWork: SharedArrayBuffer;
    metrics: SharedArrayBuffer;
    /** Int32: the change feed's signal (store/feed.ts). */
    feed: SharedArrayBuffer;
    /** BigInt64: when the running (or just requested) refresh started, in ms; 0 when none. */
    refresh: SharedArrayBuffer;
    /** Cluster mode: the node's link to PostgreSQL as the main thread sees it (store/pg/cluster-status.ts). */
    cluster: SharedArrayBuffer;
    /** The console's static files, read once by the main thread (console/static.ts). */
    console: ConsoleFiles;
  };
  /** Keyword tables of dbFile, computed once by the main thread. */
  tables: KeywordTables | null;
  /**
   * This process among the cluster's nodes, made once by the main thread:
   * `<node name>:<16 random hex digits>`, its member in Redis's live-node set
   * (limits/redis-link.ts) and the holder of its name in PostgreSQL's `nodes`
   * (store/pg/node.ts). Not host name and pid: nodes in containers may
   * share both (PID 1 on the same host name) and would count as one.
   */
  instance: string;
}

export type WorkerMessage =
  | { type: 'loaded' }
  | { type: 'listening'; thread: number; port: number }
  | { type: 'failed'; thread: number; error: string }
  | { type: 'closed'; thread: number }
  | { type: 'swapped'; thread: number; file: string; error?: string }
  | { type: 'refresh'; thread: number; accountId: number };

export type MainMessage = { type: 'start'; input: WorkerInput } | { type: 'shutdown' } | { type: 'swap'; file: string; tables: KeywordTables };

// The thread's life: its input, its stores, its background work, the app on
// the shared port, then the main thread's messages (swaps, the shutdown). Its
// state is the module's: each function below reads only what the lines
// before its call have set.
const port = parentPort!;
// Every module above is loaded, lmdb-js's and uWS's addons among them: from
// here the thread may be terminated (ServerThreads.stop) without the abort
// that a termination inside an addon's registration causes.
port.postMessage({ type: 'loaded' } satisfies WorkerMessage);
const input = await receiveInput();
setLogThread(input.thread);
if (input.config.databaseUrl !== null) setLogNode(input.config.nodeName);
handleStorageCommitErrors();

const { storage, clusterStatus } = await openThreadStorage();
/** The database this thread serves: replaced by swap(), null while none could be mapped. */
let database = openDatabase(input.dbFile);
const quality = new QualityState(storage.blacklist, storage.feed, database, input.tables ?? undefined);
const metrics = new Metrics(input.shared.metrics, input.thread);
const background = startBackgroundWork();
const { app, limits, inflight } = await buildThreadApp();
/** Set once the app listens; closed first at shutdown. */
let listenSocket: us_listen_socket | null = null;
listen();
port.on('message', (msg: MainMessage) => {
  if (msg.type === 'swap') answerSwap(msg.file, msg.tables);
  else if (msg.type === 'shutdown') void closeThread();
});

/**
 * The thread is created before its input is ready (ServerThreads.spawn): its
 * modules load meanwhile, and the input is the first message.
 */
function receiveInput(): Promise<WorkerInput> {
  return new Promise<WorkerInput>((resolve) => {
    const first = (msg: MainMessage) => {
      if (msg.type !== 'start') return;
      port.off('message', first);
      resolve(msg.input);
    };
    port.on('message', first);
  });
}

/** This thread's own storage handle; in cluster mode with its own slot and pool. Closed by closeThread. */
async function openThreadStorage() {
  const clusterStatus = input.config.databaseUrl === null ? null : new ClusterStatus(input.shared.cluster);
  const storage = await openStorage(input.config.dataDir, {
    signal: input.shared.feed,
    limits: limitsOf(input.config),
    cluster: clusterStatus && {
      databaseUrl: input.config.databaseUrl!,
      nodeName: input.config.nodeName,
      poolSize: THREAD_POOL_SIZE,
      // Slot 0 is the main thread's (which records no clicks).
      slot: input.thread + 1,
      connected: () => clusterStatus.connected,
    },
  });
  return { storage, clusterStatus };
}

/** The thread's mapping of the serving copy; null (logged) when it cannot be mapped, and redirects fail open. */
function openDatabase(file: string): IpDatabase | null {
  try {
    return IpDatabase.open(file);
  } catch (err) {
    log('error', 'database_unavailable', { error: err });
    return null;
  }
}

/**
 * What the thread does between requests, on unref'd timers that closeThread
 * clears: it follows the change feed even when idle (the blacklist, the
 * caches' memory), and writes the clicks, the experiments' visits and the
 * API keys' last use it gathered, which closeThread writes once more.
 */
function startBackgroundWork() {
  const feedTimer = setInterval(() => storage.feed.poll(Date.now()), BLACKLIST_POLL_MS);
  feedTimer.unref();
  const clicks = new ClickRecorder(storage.stats);
  const visits = new VisitRecorder(storage.experiments);
  metrics.set(Metric.clicksFlushedAt, clicks.lastFlushAt);
  // The first thread also sends what the slots of threads this run does not have kept at their stop.
  let leftBehind = input.thread === 0 ? storage.leftBehind(input.config.threads) : [];
  let sendingLeftBehind = false;
  const sendLeftBehind = async () => {
    if (leftBehind.length === 0 || sendingLeftBehind || !storage.experiments.writable()) return;
    sendingLeftBehind = true;
    try {
      while (leftBehind.length > 0) {
        const w = leftBehind[0];
        await w.stats.drain();
        await w.experiments.sendKeptVisits();
        log('info', 'kept_batches_sent', { slot: w.slot });
        leftBehind = leftBehind.slice(1);
      }
    } catch (err) {
      log('warn', 'kept_batches_not_sent', { error: err });
    } finally {
      sendingLeftBehind = false;
    }
  };
  // The first thread also finishes removing the data of routes deleted before a stop (store/lmdb-backend.ts, purgeDeletedRoutes).
  if (input.thread === 0) storage.routes.purgeDeleted().catch((err) => log('warn', 'route_data_purge_failed', { error: err }));
  // The first thread also deletes the per-day sketches past SPLITGUARD_SKETCH_DAYS, at start and then daily (store/experiments-store.ts); in cluster mode every node's does (idempotent).
  const sketchPrune = { running: null as Promise<void> | null, stopped: false };
  const pruneSketches = () => {
    if (sketchPrune.running !== null || sketchPrune.stopped) return;
    const started = Date.now();
    sketchPrune.running = storage.experiments
      .pruneSketches(() => !sketchPrune.stopped)
      .then((removed) => log('info', 'sketches_pruned', { removed, ms: Date.now() - started, days: input.config.sketchDays }))
      .catch((err) => log('warn', 'sketch_prune_failed', { error: err }))
      .finally(() => (sketchPrune.running = null));
  };
  let sketchTimer: NodeJS.Timeout | undefined;
  if (input.thread === 0) {
    pruneSketches();
    sketchTimer = setInterval(pruneSketches, DAY_MS);
    sketchTimer.unref();
  }
  const clickTimer = setInterval(() => {
    void sendLeftBehind();
    clicks
      .flush()
      .then(() => metrics.set(Metric.clicksFlushedAt, clicks.lastFlushAt))
      .catch((err) => log('error', 'click_flush_failed', { error: err }));
    visits.flush().catch((err) => log('error', 'visit_flush_failed', { error: err }));
  }, FLUSH_MS);
  clickTimer.unref();
  const keyUse = new Map<string, number>();
  const flushKeyUse = () => {
    const batch = new Map([...keyUse].map(([h, ms]) => [h, new Date(ms).toISOString()]));
    keyUse.clear();
    return storage.keys.recordUse(batch).catch((err) => log('warn', 'key_use_flush_failed', { error: err }));
  };
  const flushTimer = setInterval(flushKeyUse, 30_000);
  flushTimer.unref();
  return {
    clicks,
    visits,
    keyUse,
    /**
     * The last flush. In cluster mode everything gathered goes to the local
     * spill first, then the flush sends it, oldest first, until `until`
     * (wall time), when storage.close cuts what is still on its way: a slow
     * or stalled PostgreSQL (a backlog behind a flood) made the flush outlast
     * the thread's drain time, and the thread was ended with its queues in
     * memory. What is left waits for the next start. A single node's flush
     * writes its own store, which is waited for whole.
     */
    async stop(until: number): Promise<void> {
      clearInterval(flushTimer);
      clearInterval(feedTimer);
      clearInterval(clickTimer);
      clearInterval(sketchTimer);
      // A prune stops after its current step (milliseconds), before the store closes.
      sketchPrune.stopped = true;
      await sketchPrune.running;
      const cluster = storage.cluster !== null;
      if (cluster) {
        storage.stats.finishBy(until);
        storage.experiments.finishBy(until);
        // Each kept on its own: a spill that refuses the clicks (disk full) still takes the visits.
        try {
          clicks.handOver();
          storage.stats.keepQueued();
        } catch (err) {
          log('error', 'clicks_not_kept', { error: err });
        }
        try {
          visits.keepUnwritten();
        } catch (err) {
          log('error', 'visits_not_kept', { error: err });
        }
      }
      const flushed = Promise.all([
        clicks.flush().catch((err) => log('error', 'click_flush_failed', { error: err })),
        visits.flush().catch((err) => log('error', 'visit_flush_failed', { error: err })),
        flushKeyUse(),
      ]);
      if (!cluster) return void (await flushed);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([flushed, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, until - Date.now()))))]);
      clearTimeout(timer);
      try {
        const kept = storage.stats.keptDays();
        if (kept > 0) log('warn', 'clicks_kept_for_next_start', { routeDays: kept });
        const keptVisits = storage.experiments.keptVisits();
        if (keptVisits > 0) log('warn', 'visits_kept_for_next_start', { clicks: keptVisits });
      } catch (err) {
        log('error', 'clicks_not_kept', { error: err });
      }
    },
  };
}

/**
 * The uWS app and everything it answers with: the endpoint table, the rate
 * limits (cluster-wide through Redis when configured), the redirector and
 * the console. The limits' Redis link is closed by closeThread.
 */
async function buildThreadApp() {
  const routeCache = new RouteCache(storage.routes, storage.feed);
  // The click-id secret: made by the first thread (or process) that finds none, the same for every thread after.
  const clickIds = new ClickIds(await storage.secrets.get(CLICK_ID_SECRET, () => randomBytes(32)));
  const endpointTable = buildEndpointTable(clickIds);
  const limits = await openLimits();
  const inflight = { count: 0 };
  const deps: AppDeps = {
    config: input.config,
    keyCache: new KeyCache(storage.keys, storage.feed),
    metrics,
    endpointTable,
    accountLimiter: limits.accounts,
    authFailures: limits.authFailures,
    database: () => database,
    tls: input.tls,
    keyUse: background.keyUse,
    inflight,
    readiness: clusterStatus && (() => clusterStatus.readiness()),
    redirector: new Redirector(routeCache, () => quality.classifier, background.clicks, metrics, input.config.trustProxy, background.visits, clickIds),
    console: {
      config: input.config,
      storage,
      endpointTable,
      accountLimiter: limits.accounts,
      loginLimits: {
        addresses: limits.loginAddresses,
        emailAtAddress: limits.loginEmailAtAddress,
        emails: limits.loginEmails,
        signIns: limits.signIns,
        work: new PasswordWork(input.shared.passwordWork),
      },
      inflight,
      files: input.shared.console,
    },
  };
  return { app: buildApp(deps), limits, inflight };
}

/** The endpoint table: every resource's handlers, for the API and the console alike. */
function buildEndpointTable(clickIds: ClickIds): EndpointTable {
  const endpointTable = new EndpointTable();
  registerAccountEndpoints(endpointTable, storage);
  registerRouteEndpoints(endpointTable, storage, input.config.shortBase);
  registerConversionEndpoints(endpointTable, storage, clickIds);
  registerIpEndpoints(endpointTable, () => quality.classifier);
  registerBlacklistEndpoints(endpointTable, storage.blacklist, () => quality.classifier?.listed ?? new Map());
  registerConsoleEndpoints(endpointTable, storage, background.keyUse);
  const refreshSince = new BigInt64Array(input.shared.refresh);
  registerIpdbEndpoints(endpointTable, storage.state, () => database, {
    runningSince: () => Number(Atomics.load(refreshSince, 0)),
    trigger: (accountId, now) => {
      // Claim the slot: one trigger wins and asks the main thread; the rest join.
      const previous = Atomics.compareExchange(refreshSince, 0, 0n, BigInt(now));
      if (previous !== 0n) return { started: false, startedAt: Number(previous) };
      port.postMessage({ type: 'refresh', thread: input.thread, accountId } satisfies WorkerMessage);
      return { started: true, startedAt: now };
    },
  }, input.config);
  return endpointTable;
}

/**
 * Cluster-wide with SPLITGUARD_REDIS_URL, this process's tables standing in
 * while Redis is away; else the tables alone. The redirect never counts here.
 * Redis's modules are loaded only when it is configured.
 */
async function openLimits() {
  const tables = localTables(input.shared);
  if (!input.config.redisUrl) return localLimits(tables);
  const [{ RedisLink }, { redisLimits }] = await Promise.all([import('./limits/redis-link.js'), import('./limits/redis-limits.js')]);
  const link = new RedisLink({ url: input.config.redisUrl, timeoutMs: input.config.redisTimeoutMs, metrics, reportsNodes: input.thread === 0, member: input.instance });
  await link.started();
  return redisLimits(link, tables);
}

/** Listens on the shared port and tells the main thread the port, or that it could not. */
function listen(): void {
  app.listen(input.config.host, input.config.port, (token) => {
    if (!token) {
      port.postMessage({ type: 'failed', thread: input.thread, error: `could not listen on ${input.config.host}:${input.config.port}` } satisfies WorkerMessage);
      return;
    }
    listenSocket = token;
    port.postMessage({ type: 'listening', thread: input.thread, port: uws.us_socket_local_port(token) } satisfies WorkerMessage);
  });
}

/**
 * A swap: map the new file, rebuild the classifier around the shared keyword
 * tables, switch. Redirects are synchronous, so none is half-way through the
 * old database when this runs; the old mapping goes when its last view is
 * collected.
 */
function swap(file: string, tables: KeywordTables): void {
  const next = IpDatabase.open(file);
  quality.setDatabase(next, tables);
  const old = database;
  database = next;
  old?.close();
  metrics.inc(Metric.swaps);
}

/** Swaps, and answers the main thread whether this thread now serves `file`. */
function answerSwap(file: string, tables: KeywordTables): void {
  try {
    swap(file, tables);
    port.postMessage({ type: 'swapped', thread: input.thread, file } satisfies WorkerMessage);
  } catch (err) {
    log('error', 'ipdb_swap_failed', { file, error: err });
    port.postMessage({ type: 'swapped', thread: input.thread, file, error: (err as Error).message } satisfies WorkerMessage);
  }
}

/**
 * Graceful stop: no new connections, let in-flight answers finish, write
 * what is pending, close everything, tell the main thread.
 */
async function closeThread(): Promise<void> {
  const started = Date.now();
  if (listenSocket) uws.us_listen_socket_close(listenSocket);
  listenSocket = null;
  const deadline = started + INFLIGHT_WAIT_MS;
  while (inflight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  // Every connection ends before the last flush: a keep-alive client served
  // during it would count clicks that nothing writes any more.
  // close() exists in this uWS build (it ends every open connection) but not in its typings.
  (app as unknown as { close(): void }).close();
  await background.stop(started + LAST_FLUSH_BY_MS);
  await storage.close(started + LAST_FLUSH_BY_MS);
  await limits.close();
  port.postMessage({ type: 'closed', thread: input.thread } satisfies WorkerMessage);
  port.close();
}
